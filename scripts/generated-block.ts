/**
 * A generated block of a Markdown document: the text between `<!-- NAME:begin … -->` and
 * `<!-- NAME:end -->`, replaced whole by what the code says (`npm run docs`), and compared by a
 * staleness test.
 */

/** The markers of block `name`, naming the file it is generated from. */
export function blockMarkers(name: string, source: string): { readonly begin: string; readonly end: string } {
  return { begin: `<!-- ${name}:begin (generated from ${source} by \`npm run docs\`; do not edit) -->`, end: `<!-- ${name}:end -->` };
}

/** `doc` with the block between `markers` replaced by `body`; throws when the markers are missing. */
export function withBlock(doc: string, markers: { readonly begin: string; readonly end: string }, body: string): string {
  const begin = doc.indexOf(markers.begin);
  const end = doc.indexOf(markers.end);
  if (begin < 0 || end < begin) throw new Error(`the document has no ${markers.begin} … ${markers.end} block`);
  return `${doc.slice(0, begin + markers.begin.length)}\n\n${body}\n\n${doc.slice(end)}`;
}

/** A Markdown table cell: pipes escaped, one line. */
export function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}
