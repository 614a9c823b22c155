"""Layout checks on a page Chromium has laid out (a Playwright `page`), measured with the browser's
own boxes (`getBoundingClientRect`), for the browser tests of what Faultline draws:

    overflowing(page)          # elements wider than their container, and sideways page scrolling
    scrolling(page)            # elements that scroll sideways inside the page
    null_texts(page)           # text nodes reading `null` (a script's missing value printed)
    text_count(page, sentence) # how many times a sentence is printed on the page

`overflowing` holds an element to its parent's content box (inside the border, padding included,
the scrollbar excluded; for a parent that scrolls sideways on purpose, `overflow-x: auto` or
`scroll`, its whole scrollable width) and an SVG shape to its `<svg>`'s box, so a label cut off at
the picture's edge counts; an element of no size (an empty `<title>`, a `<style>`) is not
measured. The page itself must not scroll sideways. Each problem is a sentence naming the element and both boxes."""
import re

_OVERFLOWING = """() => {
  const problems = [];
  const root = document.documentElement;
  if (root.scrollWidth > root.clientWidth + 0.5) {
    problems.push(`the page scrolls sideways: ${root.scrollWidth} px of content in ${root.clientWidth} px`);
  }
  const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '')
    + (el.getAttribute('class') ? '.' + el.getAttribute('class').trim().split(/\\s+/).join('.') : '')
    + (el.textContent && el.children.length === 0 ? ` "${el.textContent.trim().slice(0, 40)}"` : '');
  const box = (r) => `[${r.left.toFixed(1)}, ${r.right.toFixed(1)}]`;
  for (const el of document.body.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    const svg = el.ownerSVGElement;
    let left, right, container;
    if (svg) {
      const s = svg.getBoundingClientRect();
      left = s.left; right = s.right; container = svg;
    } else {
      const p = el.parentElement;
      const q = p.getBoundingClientRect();
      const scrolls = ['auto', 'scroll'].includes(getComputedStyle(p).overflowX);
      left = q.left + p.clientLeft - p.scrollLeft;
      right = left + (scrolls ? p.scrollWidth : p.clientWidth > 0 ? p.clientWidth : q.width);
      container = p;
    }
    if (r.left < left - 0.5 || r.right > right + 0.5) {
      problems.push(`${name(el)} ${box(r)} is outside ${name(container)} [${left.toFixed(1)}, ${right.toFixed(1)}]`);
    }
  }
  return problems;
}"""

_TEXTS = """() => {
  const texts = [];
  const walker = document.createTreeWalker(document.documentElement, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const parent = walker.currentNode.parentElement;
    if (parent && parent.tagName.toLowerCase() === 'style') continue;
    texts.push(walker.currentNode.data);
  }
  return texts;
}"""


def overflowing(page):
    """Sentences describing each element wider than its container, and sideways scrolling."""
    return page.evaluate(_OVERFLOWING)


_SCROLLING = """() => [...document.body.querySelectorAll('*')]
  .filter((el) => ['auto', 'scroll'].includes(getComputedStyle(el).overflowX) && el.scrollWidth > el.clientWidth)
  .map((el) => ({tag: el.tagName.toLowerCase(), cls: el.getAttribute('class'),
                 scrollWidth: el.scrollWidth, clientWidth: el.clientWidth}))"""


def scrolling(page):
    """The elements that scroll sideways: tag, class, scrollWidth and clientWidth of each."""
    return page.evaluate(_SCROLLING)


def texts(page):
    """Every text node of the page (the head's title included, style sheets left out)."""
    return page.evaluate(_TEXTS)


def null_texts(page):
    """The text nodes that print `null` as a word."""
    return [text for text in texts(page) if re.search(r"\bnull\b", text)]


def text_count(page, sentence):
    """How many times `sentence` occurs in the page's text nodes (tooltips' `<title>`s too)."""
    return sum(text.count(sentence) for text in texts(page))
