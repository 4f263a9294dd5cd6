// The bench user's first plants exactly as the data generator writes them, so the ceiling sends the same bytes.
import { plantName, plantTag } from '../plant-content.js';

export function firstPage(size: number): Array<{ name: string; tag?: string }> {
  return Array.from({ length: size }, (_, index) => {
    const tag = plantTag(index + 1);
    return tag === null ? { name: plantName(index + 1) } : { name: plantName(index + 1), tag };
  });
}
