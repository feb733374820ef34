/** `--json`: exactly one JSON object, on one line of stdout. */
export function writeJson(out: { write(text: string): unknown }, value: unknown): void {
  out.write(`${JSON.stringify(value)}\n`);
}
