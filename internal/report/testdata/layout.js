// Measures the rendered report the way a person looks at it; returns
// {viewport, problems, charts, tasks} (see layout in chromium_test.go).
(() => {
  const de = document.documentElement;
  const vw = de.clientWidth;
  const out = {viewport: vw, problems: [], charts: [], tasks: 0};
  const add = (s) => { if (out.problems.length < 40) out.problems.push(s); };
  const px = (v) => Math.round(v);
  const name = (el) => {
    let s = el.tagName.toLowerCase();
    const cls = el.getAttribute('class');
    if (cls) s += '.' + cls.trim().split(/\s+/).join('.');
    for (const a of ['data-chart', 'data-task', 'data-attempt', 'data-segment', 'data-gate']) {
      if (el.hasAttribute(a)) s += `[${a}=${el.getAttribute(a)}]`;
    }
    return s;
  };
  const shown = (el) => {
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (s.display === 'none' || s.visibility === 'hidden' || parseFloat(s.opacity) === 0) return false;
    }
    return true;
  };
  const inside = (r, box) => r.left >= box.left - 0.5 && r.right <= box.right + 0.5 &&
    r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5;
  const overlap = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;

  // What a person can open is measured open.
  for (const d of document.querySelectorAll('details')) d.open = true;

  // Nothing wider than the viewport, nothing cut off by a scrolling box.
  if (de.scrollWidth > vw + 1) add(`the page is ${de.scrollWidth}px wide in a ${vw}px viewport`);
  const wide = new Set(); // reported as wider than the viewport: not its children again
  for (const el of document.body.querySelectorAll('*')) {
    if (el.ownerSVGElement) continue; // inside an svg: checked below
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if ((r.left < -0.5 || r.right > vw + 0.5) && !wide.has(el.parentElement)) {
      add(`${name(el)} spans ${px(r.left)}–${px(r.right)}px of a ${vw}px viewport`);
    }
    if (r.left < -0.5 || r.right > vw + 0.5 || wide.has(el.parentElement)) wide.add(el);
    const s = getComputedStyle(el);
    if (s.overflowX !== 'visible' && el.scrollWidth > el.clientWidth + 1) {
      add(`${name(el)} cuts off its content: ${el.scrollWidth}px shown in ${el.clientWidth}px`);
    }
    if (s.overflowY !== 'visible' && el.scrollHeight > el.clientHeight + 1 && el !== de && el !== document.body) {
      add(`${name(el)} cuts off its content: ${el.scrollHeight}px high shown in ${el.clientHeight}px`);
    }
  }

  // Table headers and badges read on one line ("DURATI ON" was a header at
  // 1280 px), and no number is broken in two ("~$0.3 / 0"); a cell of paths
  // or prose may wrap anywhere.
  const lines = (rg) => {
    const tops = new Set();
    for (const r of rg.getClientRects()) if (r.width > 0) tops.add(Math.round(r.top));
    return tops.size;
  };
  for (const el of document.querySelectorAll('th, .badge')) {
    if (!shown(el) || el.textContent.trim() === '') continue;
    const rg = document.createRange();
    rg.selectNodeContents(el);
    const n = lines(rg);
    if (n > 1) add(`${name(el)} "${el.textContent.trim()}" is broken over ${n} lines`);
  }
  for (const el of document.querySelectorAll('td.num')) {
    if (!shown(el)) continue;
    const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let t = walk.nextNode(); t; t = walk.nextNode()) {
      for (const m of t.textContent.matchAll(/\S+/g)) {
        const rg = document.createRange();
        rg.setStart(t, m.index);
        rg.setEnd(t, m.index + m[0].length);
        if (lines(rg) > 1) add(`${name(el)}: "${m[0]}" is broken across lines`);
      }
    }
  }

  // No text runs out of its svg.
  for (const svg of document.querySelectorAll('svg')) {
    const box = svg.getBoundingClientRect();
    for (const t of svg.querySelectorAll('text')) {
      const r = t.getBoundingClientRect();
      if (r.width > 0 && shown(t) && !inside(r, box)) add(`text "${t.textContent}" runs out of ${name(svg)}`);
    }
  }

  // Charts: a size, and each known value a visible mark inside the chart.
  for (const svg of document.querySelectorAll('svg.chart')) {
    const box = svg.getBoundingClientRect();
    const c = {chart: svg.dataset.chart, width: box.width, height: box.height,
      points: Number(svg.dataset.points), marks: 0, shapes: 0, empty: false};
    for (const m of svg.querySelectorAll('circle.pt')) {
      const r = m.getBoundingClientRect();
      const st = getComputedStyle(m);
      if (shown(m) && st.stroke !== 'none' && parseFloat(st.strokeWidth) > 0 && r.width > 0 && r.height > 0 && inside(r, box)) c.marks++;
    }
    for (const m of svg.querySelectorAll('polyline.line, rect.bar')) {
      const r = m.getBoundingClientRect();
      const st = getComputedStyle(m);
      const painted = m.matches('.line') ? st.stroke !== 'none' : st.fill !== 'none';
      if (shown(m) && painted && (r.width > 0 && r.height > 0) && inside(r, box)) c.shapes++;
    }
    const empty = svg.querySelector('text.empty');
    c.empty = !!empty && shown(empty) && empty.getBoundingClientRect().width > 0;
    out.charts.push(c);
  }

  // Task boxes: drawn, their texts inside the box and apart from each other.
  for (const g of document.querySelectorAll('svg.graph g.task')) {
    const box = g.querySelector('rect').getBoundingClientRect();
    if (box.width > 0 && box.height > 0 && shown(g)) out.tasks++;
    const texts = [...g.querySelectorAll('text')].map((t) => [t.textContent, t.getBoundingClientRect()]);
    for (const [txt, r] of texts) {
      if (!inside(r, box)) add(`task ${g.dataset.task}: "${txt}" runs out of its box`);
    }
    for (let i = 0; i < texts.length; i++) {
      for (let j = i + 1; j < texts.length; j++) {
        if (overlap(texts[i][1], texts[j][1])) add(`task ${g.dataset.task}: "${texts[i][0]}" overlaps "${texts[j][0]}"`);
      }
    }
  }
  return out;
})()
