// The source viewer: `#L12-L30` scrolls to line 12 and marks lines 12 to 30 (a heading id or a
// single line id is scrolled to by the browser itself).
function mark() {
  for (const el of document.querySelectorAll('.line.marked')) el.classList.remove('marked');
  const range = /^#L(\d+)(?:-L(\d+))?$/.exec(location.hash);
  if (!range) return;
  const first = Number(range[1]);
  const last = Number(range[2] ?? range[1]);
  for (let n = first; n <= last; n++) document.getElementById(`L${n}`)?.classList.add('marked');
  document.getElementById(`L${first}`)?.scrollIntoView({ block: 'start' });
}
window.addEventListener('hashchange', mark);
mark();
