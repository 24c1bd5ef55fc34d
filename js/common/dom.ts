// DOM helpers. Profile strings are untrusted: text always goes in through textContent.

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

export function clear(node: Element): void {
  node.replaceChildren(); // one call, not one removal per child
}

/** A canvas sized in CSS pixels with a backing store at devicePixelRatio. */
export function sizeCanvas(canvas: HTMLCanvasElement, width: number, height: number): CanvasRenderingContext2D {
  const dpr = window.devicePixelRatio || 1;
  const w = Math.max(1, Math.floor(width));
  const h = Math.max(1, Math.floor(height));
  if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
    canvas.style.width = `${w}px`;
    canvas.style.height = `${h}px`;
  }
  const ctx = canvas.getContext("2d")!;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  return ctx;
}

/**
 * Put the absolutely positioned `tip` below right of the pointer at page position
 * (`clientX`, `clientY`), `box` being the page box of the element it is positioned in;
 * kept inside that box's width when it is known.
 */
export function placeTip(
  tip: HTMLElement,
  clientX: number,
  clientY: number,
  box: { left: number; top: number; width?: number },
): void {
  const x = clientX - box.left + 14;
  const room = box.width === undefined ? x : box.width - (tip.offsetWidth || 0) - 4;
  tip.style.left = `${Math.max(0, Math.min(x, room))}px`;
  tip.style.top = `${clientY - box.top + 14}px`;
}
