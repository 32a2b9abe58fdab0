// Injected at the top of <head> of every page tests/reports/html_browser_test.cc
// renders in headless Chromium. It records errors from the moment the page
// starts (script errors, failed resources, console.error/warn, unhandled
// rejections) and, once the page has loaded, checks the chart markup contract
// of docs/html-charts.md, then appends its verdict as JSON in
// <pre id="hn-page-check"> for the test to read from the dumped DOM.
(function () {
  'use strict';
  const errors = [];
  window.addEventListener('error', (e) => {
    const t = e.target;
    if (t && t !== window && (t.src || t.href))
      errors.push('failed to load ' + (t.src || t.href));
    else
      errors.push('uncaught: ' + (e.message || String(e.error)));
  }, true);
  window.addEventListener('unhandledrejection', (e) => {
    errors.push('unhandled rejection: ' + String(e.reason));
  });
  for (const level of ['error', 'warn']) {
    const original = console[level];
    console[level] = function (...args) {
      errors.push('console.' + level + ': ' + args.map(String).join(' '));
      return original.apply(console, args);
    };
  }

  // A paint as the browser resolved it (rgb(...)), or null for none.
  function paint(el, property) {
    const v = getComputedStyle(el)[property];
    return v && v !== 'none' ? v : null;
  }
  function colourOf(el) {
    return paint(el, 'stroke') || paint(el, 'fill');
  }
  function drawn(el) {
    const b = el.getBBox();
    return b.width > 0 || b.height > 0;
  }
  const shapes = 'rect,line,polyline,polygon,path,circle,ellipse';

  function checkChart(svg, index, problems) {
    const where = 'chart ' + (index + 1) + ' (' + (svg.getAttribute('aria-label') || 'no aria-label') + ')';
    const box = svg.getBoundingClientRect();
    if (!(box.width > 0 && box.height > 0))
      problems.push(where + ': its drawing area is ' + box.width + 'x' + box.height);
    if (![...svg.querySelectorAll(shapes)].some(drawn))
      problems.push(where + ': nothing is drawn in it');
    const series = new Map();  // name -> Set of colours
    for (const el of svg.querySelectorAll('[data-series]')) {
      const name = el.getAttribute('data-series');
      const parts = el.matches(shapes) ? [el] : [...el.querySelectorAll(shapes)];
      if (!parts.some(drawn)) problems.push(where + ': series "' + name + '" draws nothing');
      if (!series.has(name)) series.set(name, new Set());
      series.get(name).add(colourOf(el));
    }
    if (series.size === 0) {
      problems.push(where + ': no series is marked (data-series)');
      return 0;
    }
    const owner = new Map();  // colour -> series
    for (const [name, colours] of series) {
      if (name.trim() === '') problems.push(where + ': a series has an empty name');
      if (colours.size !== 1)
        problems.push(where + ': series "' + name + '" is drawn in ' + colours.size + ' colours');
      for (const c of colours) {
        if (c === null) problems.push(where + ': series "' + name + '" has no colour');
        else if (owner.has(c) && owner.get(c) !== name)
          problems.push(where + ': series "' + name + '" and "' + owner.get(c) + '" share the colour ' + c);
        else owner.set(c, name);
      }
      const legend = svg.querySelector('[data-legend="' + CSS.escape(name) + '"]');
      if (!legend) {
        problems.push(where + ': series "' + name + '" has no legend entry (data-legend)');
        continue;
      }
      if (legend.textContent.trim() === '')
        problems.push(where + ': the legend entry of "' + name + '" has no text');
      const swatch = [...legend.querySelectorAll(shapes)].some(
          (e) => drawn(e) && (colours.has(paint(e, 'fill')) || colours.has(paint(e, 'stroke'))));
      if (!swatch)
        problems.push(where + ': the legend entry of "' + name + '" has no swatch in its colour');
    }
    for (const l of svg.querySelectorAll('[data-legend]'))
      if (!series.has(l.getAttribute('data-legend')))
        problems.push(where + ': legend entry "' + l.getAttribute('data-legend') + '" names no series');
    return series.size;
  }

  window.addEventListener('load', () => {
    const problems = [];
    const charts = [...document.querySelectorAll('svg.chart')];
    let series = 0;
    charts.forEach((svg, i) => { series += checkChart(svg, i, problems); });
    const out = document.createElement('pre');
    out.id = 'hn-page-check';
    out.textContent = JSON.stringify({charts: charts.length, series: series, errors: errors, problems: problems});
    document.body.appendChild(out);
  });
})();
