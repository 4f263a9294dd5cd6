// Pipelined HTTP/1.1: every request written at once on one connection, and the answers split apart.
import { connect } from 'node:net';

export interface Answer {
  status: number;
  body: string;
}

/** Splits pipelined HTTP/1.1 answers (each with Content-Length, or none for 204). */
function answers(text: string): Answer[] {
  const found: Answer[] = [];
  let at = 0;
  for (;;) {
    const end = text.indexOf('\r\n\r\n', at);
    if (end === -1) return found;
    const head = text.slice(at, end);
    const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
    if (text.length < end + 4 + length) return found;
    found.push({ status: Number(head.split(' ')[1]), body: text.slice(end + 4, end + 4 + length) });
    at = end + 4 + length;
  }
}

/** Writes every request at once on one connection and reads as many answers. */
export function pipeline(port: number, requests: string[]): Promise<Answer[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (chunk) => {
      text += String(chunk);
      const found = answers(text);
      if (found.length < requests.length) return;
      socket.destroy();
      resolve(found);
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`closed after ${answers(text).length} of ${requests.length} answers`)));
    socket.write(requests.join(''));
  });
}
