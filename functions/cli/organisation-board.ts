/**
 * The terminal of organisations running at once (cli/organisations.ts): each organisation's run writes to
 * a stream of its own, and the board keeps one line per organisation at work — its progress
 * frame, `[<id>] …`, cut to the terminal's width — below the lines the runs print, each of
 * those prefixed with its organisation. Off a terminal (CI logs, pipes) the runs draw no frame
 * (their stream is not a TTY) and every line is prefixed, whole: lines of two organisations never
 * mix within a line.
 */
import { CLEAR_LINE, cut, DEFAULT_COLUMNS, type LineStream, widthOf } from './progress.js';

/** The escape that ends a frame written by progress.ts's terminal line (`\r<frame>\x1b[K`). */
const CLEAR_TO_END = '\x1b[K';

export interface OrganisationBoard {
  /** The stderr of organisation `id`'s run: lines prefixed with `[id] `, a progress frame one line of the board. */
  stderrOf(id: string): LineStream;
  /** Writes `text` (whole lines) to `stream` above the board: a line of the whole, or an organisation's block of output. */
  print(text: string, stream?: LineStream): void;
  /** Organisation `id` is no longer at work: its line leaves the board (a partial line it left is printed). */
  done(id: string): void;
  /** Clears the board from the terminal. */
  close(): void;
}

/** The board over `stderr` (the process's): frames are drawn only when it is a terminal. */
export function createOrganisationBoard(stderr: LineStream): OrganisationBoard {
  const tty = stderr.isTTY === true;
  const columns = () => (stderr.columns !== undefined && stderr.columns > 0 ? stderr.columns : DEFAULT_COLUMNS);
  /** Organisations at work, in the order they started, with their latest frame ('' before the first). */
  const frames = new Map<string, string>();
  const partial = new Map<string, string>();
  let drawn = 0;

  const erase = () => {
    if (drawn === 0) return;
    // Up to the board's first line, then clear everything below.
    stderr.write(`\x1b[${drawn}F\x1b[J`);
    drawn = 0;
  };
  const draw = () => {
    if (!tty) return;
    const lines = [...frames].filter(([, frame]) => frame !== '').map(([id, frame]) => cut(`[${id}] ${frame}`, columns() - 1));
    if (lines.length === 0) return;
    stderr.write(`${lines.join('\n')}\n`);
    drawn = lines.length;
  };
  const print = (text: string, stream: LineStream = stderr) => {
    erase();
    stream.write(text);
    draw();
  };
  const lineOf = (id: string, line: string) => `[${id}] ${line}\n`;

  const writeOf = (id: string) => (text: string) => {
    if (text === CLEAR_LINE) return true;
    if (text.startsWith('\r') && text.endsWith(CLEAR_TO_END) && !text.slice(1).includes('\n')) {
      if (!frames.has(id)) return true;
      frames.set(id, text.slice(1, -CLEAR_TO_END.length));
      erase();
      draw();
      return true;
    }
    const buffered = `${partial.get(id) ?? ''}${text}`;
    const lines = buffered.split('\n');
    partial.set(id, lines.pop() ?? '');
    const out: string[] = [];
    for (const line of lines) {
      // A frame's line ended (`end()` leaves the last frame on screen): it becomes a line of its own.
      if (line === '' && (frames.get(id) ?? '') !== '') {
        out.push(lineOf(id, frames.get(id) as string));
        frames.set(id, '');
      } else out.push(lineOf(id, line.replaceAll('\r', '')));
    }
    if (out.length > 0) print(out.join(''));
    return true;
  };

  return {
    stderrOf(id) {
      if (!frames.has(id)) frames.set(id, '');
      const prefix = widthOf(`[${id}] `);
      return {
        write: writeOf(id),
        isTTY: tty,
        // The frame leaves room for the prefix.
        get columns() {
          return Math.max(20, columns() - prefix);
        },
      };
    },
    print,
    done(id) {
      const rest = partial.get(id);
      partial.delete(id);
      frames.delete(id);
      if (rest !== undefined && rest !== '') print(lineOf(id, rest));
      else {
        erase();
        draw();
      }
    },
    close() {
      frames.clear();
      erase();
    },
  };
}
