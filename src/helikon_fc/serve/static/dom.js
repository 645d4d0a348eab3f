// Building the page from untrusted run data: every string becomes a text node, never markup.

const SVG_NS = "http://www.w3.org/2000/svg";

/** A new element: `props` are attributes (plus `class`, `text`, `on<event>` handlers), `children` nodes or strings. */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  setProps(node, props);
  append(node, children);
  return node;
}

/** A new SVG element with attributes `props`. */
export function svg(tag, props = {}, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  setProps(node, props);
  append(node, children);
  return node;
}

function setProps(node, props) {
  for (const [name, value] of Object.entries(props)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "class") node.setAttribute("class", value);
    else if (name === "text") node.textContent = String(value);
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
}

/** Append `children` to `node`: nodes as they are, anything else as text; null, undefined and false are skipped. */
export function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** Replace everything inside `node` with `children`. */
export function fill(node, ...children) {
  node.replaceChildren();
  return append(node, children);
}

/** The element with id `id` (the page's own skeleton, so a missing one is a bug worth a loud error). */
export function byId(id) {
  const node = document.getElementById(id);
  if (node === null) throw new Error(`the page has no element #${id}`);
  return node;
}
