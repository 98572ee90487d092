/** Escapes text for HTML content and attribute values. */
export function esc(text: string): string {
  return text.replace(/[&<>"']/g, c => `&#${c.charCodeAt(0)};`);
}

/** The style of the HTML report and the comparison page: self-contained, no network. */
export const REPORT_CSS = `
:root{--fg:#1d2433;--muted:#5b6478;--line:#dde1ea;--pass:#17803d;--fail:#b42318;--warn:#b54708;font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:var(--fg);background:#f7f8fb}
body{margin:0}header{background:#fff;border-bottom:1px solid var(--line);padding:1rem 1.5rem}h1{font-size:1.3rem;margin:0}
h2{font-size:1.05rem;margin:1.5rem 0 .5rem}main{padding:1rem 1.5rem 2rem;max-width:1400px}.muted{color:var(--muted);font-weight:normal}
.cards{display:flex;flex-wrap:wrap;gap:.75rem;margin:0 0 1rem}.cards div{background:#fff;border:1px solid var(--line);border-radius:6px;padding:.6rem .9rem;min-width:8rem}
.cards dt{color:var(--muted);font-size:.8rem}.cards dd{margin:0;font-size:1.4rem;font-weight:600}
.filter{display:flex;flex-direction:column;font-size:.8rem;color:var(--muted);max-width:30rem}.filter input{font:inherit;padding:.3rem .4rem}
table{border-collapse:collapse;width:100%;background:#fff;border:1px solid var(--line)}th,td{text-align:left;padding:.35rem .6rem;border-bottom:1px solid var(--line);vertical-align:top}
thead th{background:#eef1f6}.num{text-align:right;font-variant-numeric:tabular-nums}.ok{color:var(--pass);font-weight:600}.bad{color:var(--fail);font-weight:600}
.cell.pass{background:#dcfae6;color:var(--pass)}.cell.fail,.cell.failed,.cell.missing{background:#fee4e2;color:var(--fail)}.cell.skipped{background:#fef0c7;color:var(--warn)}
.badge{border-radius:999px;padding:0 .5rem;font-size:.8rem;font-weight:600;background:#fee4e2;color:var(--fail)}
.diff span{font-family:ui-monospace,monospace;font-size:.85rem;padding:0 .3rem;border-radius:3px}.diff .same{background:#eef1f6}
.diff .missing{background:#fee4e2;color:var(--fail);text-decoration:line-through}.diff .extra{background:#fef0c7;color:var(--warn)}
.mono{font-family:ui-monospace,monospace;font-size:.85rem}tr[hidden]{display:none}
`;
