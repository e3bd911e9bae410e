import type { Page } from 'playwright-core';

/**
 * A text whose colour does not stand out enough from what is behind it (WCAG
 * 1.4.3: 4.5:1, 3:1 for large text), or whose background is an image or a
 * gradient this check cannot measure.
 */
export interface ContrastFailure {
  text: string;
  /** The element that holds the text, as `tag.class…`. */
  element: string;
  color: string;
  background: string;
  /** Rounded to two places; null when the background could not be measured. */
  ratio: number | null;
  required: number;
}

/*
 * Run in the page, as source: the tests are compiled without the DOM's types.
 * axe-core gives up on some of these (it lists them as "incomplete", which a
 * check of violations never sees); here every visible text is measured:
 * its computed colour against the first opaque background-color up its
 * ancestors, translucent layers blended on the way, the canvas at the end.
 */
const MEASURE = `(() => {
  const channels = (css) => {
    const m = /rgba?\\(([^)]+)\\)/.exec(css);
    if (!m) return null;
    const [r, g, b, a] = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number);
    return { r, g, b, a: a === undefined || Number.isNaN(a) ? 1 : a };
  };
  const over = (top, bottom) => {
    const a = top.a + bottom.a * (1 - top.a);
    if (a === 0) return { r: 0, g: 0, b: 0, a: 0 };
    const mix = (t, u) => (t * top.a + u * bottom.a * (1 - top.a)) / a;
    return { r: mix(top.r, bottom.r), g: mix(top.g, bottom.g), b: mix(top.b, bottom.b), a };
  };
  const luminance = (c) => {
    const lin = (v) => { const s = v / 255; return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
  };
  const ratio = (x, y) => { const [hi, lo] = [luminance(x), luminance(y)].sort((p, q) => q - p); return (hi + 0.05) / (lo + 0.05); };
  const probe = document.createElement('div');
  probe.style.backgroundColor = 'Canvas';
  document.body.appendChild(probe);
  const canvas = channels(getComputedStyle(probe).backgroundColor) || { r: 255, g: 255, b: 255, a: 1 };
  probe.remove();
  const hidden = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const s = getComputedStyle(e);
      // Text for screen readers only (clipped to nothing), or a tooltip shown on hover alone.
      if (s.clip === 'rect(0px, 0px, 0px, 0px)' || s.clipPath === 'inset(50%)') return true;
      if (s.opacity === '0') return true;
    }
    return !el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true });
  };
  const backdrop = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (s.backgroundImage !== 'none') return { image: s.backgroundImage };
      const c = channels(s.backgroundColor);
      if (c && c.a > 0) layers.push(c);
      if (c && c.a >= 1) break;
    }
    return { color: layers.reduceRight((below, layer) => over(layer, below), canvas) };
  };
  const describe = (el) => el.tagName.toLowerCase() + [...el.classList].map((c) => '.' + c).join('');
  const failures = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent.replace(/\\s+/g, ' ').trim();
    const el = node.parentElement;
    if (!text || !el || hidden(el)) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    if ([...range.getClientRects()].every((r) => r.width === 0 || r.height === 0)) continue;
    const s = getComputedStyle(el);
    const size = parseFloat(s.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(s.fontWeight) >= 700);
    const required = large ? 3 : 4.5;
    const back = backdrop(el);
    if (back.image) {
      failures.push({ text, element: describe(el), color: s.color, background: back.image, ratio: null, required });
      continue;
    }
    const fg = channels(s.color);
    const seen = over(fg, back.color);
    const measured = ratio(seen, back.color);
    if (measured < required) {
      const css = (c) => 'rgb(' + [c.r, c.g, c.b].map(Math.round).join(', ') + ')';
      failures.push({ text, element: describe(el), color: s.color, background: css(back.color), ratio: Math.round(measured * 100) / 100, required });
    }
  }
  return failures;
})()`;

/** Every visible text of the page whose contrast with its own background is under WCAG's minimum. */
export function contrastFailures(page: Page): Promise<ContrastFailure[]> {
  return page.evaluate<ContrastFailure[]>(MEASURE);
}
