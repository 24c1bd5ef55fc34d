// Placeholder entry: the real timeline lands with the widget issue.
import "./widget.css";

interface RenderProps {
  el: HTMLElement;
}

function render({ el }: RenderProps): void {
  const box = document.createElement("div");
  box.className = "ipu-nb-loading";
  box.textContent = "loading";
  el.appendChild(box);
}

export default { render };
