// Pipelined HTTP/1.1: every request written at once on one connection, and the answers split apart.
import { connect } from 'node:net';

export interface Answer {
  status: number;
  /** Names in lower case. */
  headers: Record<string, string>;
  body: string;
}

/**
 * The whole HTTP/1.1 answers in `text`, in order (each with Content-Length, or none for 204); an
 * answer still arriving is left out. Lengths count bytes, as Content-Length does.
 */
export function parseAnswers(text: string): Answer[] {
  const bytes = Buffer.from(text);
  const found: Answer[] = [];
  let at = 0;
  for (;;) {
    const end = bytes.indexOf('\r\n\r\n', at);
    if (end === -1) return found;
    const [statusLine = '', ...lines] = bytes.toString('latin1', at, end).split('\r\n');
    const headers = Object.fromEntries(
      lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
    );
    const length = Number(headers['content-length'] ?? 0);
    if (bytes.length < end + 4 + length) return found;
    found.push({ status: Number(statusLine.split(' ')[1]), headers, body: bytes.toString('utf8', end + 4, end + 4 + length) });
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
      const found = parseAnswers(text);
      if (found.length < requests.length) return;
      socket.destroy();
      resolve(found);
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`closed after ${parseAnswers(text).length} of ${requests.length} answers`)));
    socket.write(requests.join(''));
  });
}
