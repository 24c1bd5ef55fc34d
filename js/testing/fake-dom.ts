// A small stand-in for the browser for unit tests under node: elements that keep their
// children, attributes and listeners, canvases whose 2D context accepts every call, a
// window whose timers and animation frames run when the test says, and a model that
// behaves like anywidget's (Backbone) one. Only what the widget uses is here.

type Listener = { fn: (event: any) => void; capture: boolean };

const targets = new Set<FakeEventTarget>();

export class FakeEventTarget {
  private listeners = new Map<string, Listener[]>();

  constructor() {
    targets.add(this);
  }

  addEventListener(type: string, fn: (event: any) => void, options?: boolean | AddEventListenerOptions): void {
    const capture = typeof options === "boolean" ? options : Boolean(options?.capture);
    const list = this.listeners.get(type) ?? [];
    if (!list.some((l) => l.fn === fn && l.capture === capture)) list.push({ fn, capture });
    this.listeners.set(type, list);
  }

  removeEventListener(type: string, fn: (event: any) => void, options?: boolean | EventListenerOptions): void {
    const capture = typeof options === "boolean" ? options : Boolean(options?.capture);
    const list = (this.listeners.get(type) ?? []).filter((l) => !(l.fn === fn && l.capture === capture));
    if (list.length) this.listeners.set(type, list);
    else this.listeners.delete(type);
  }

  /** Calls this target's listeners for `event.type` (no bubbling); `event` gets defaults for what handlers call. */
  dispatchEvent(event: { type: string; [key: string]: unknown }): boolean {
    const full = { target: this, preventDefault() {}, stopPropagation() {}, ...event };
    for (const l of [...(this.listeners.get(event.type) ?? [])]) l.fn(full);
    return true;
  }

  listenerCount(): number {
    let n = 0;
    for (const list of this.listeners.values()) n += list.length;
    return n;
  }

  listenerTypes(): string[] {
    return [...this.listeners.keys()];
  }
}

/** Listeners registered on every fake element, the window and the document together. */
export function listenerCount(): number {
  let n = 0;
  for (const t of targets) n += t.listenerCount();
  return n;
}

/** Where listeners remain, for failure messages: "DIV.ipu-nb-x: click". */
export function remainingListeners(): string[] {
  const out: string[] = [];
  for (const t of targets) {
    if (!t.listenerCount()) continue;
    const name = t instanceof FakeElement ? `${t.tagName}.${t.className}` : t.constructor.name;
    out.push(`${name}: ${t.listenerTypes().join(", ")}`);
  }
  return out;
}

function context2d(canvas: FakeElement): unknown {
  const state: Record<string | symbol, unknown> = {
    canvas,
    measureText: (text: string) => ({ width: 6 * text.length }),
    createImageData: (w: number, h: number) => ({ width: w, height: h, data: new Uint8ClampedArray(w * h * 4) }),
    getImageData: (_x: number, _y: number, w: number, h: number) => ({
      width: w,
      height: h,
      data: new Uint8ClampedArray(w * h * 4),
    }),
  };
  return new Proxy(state, {
    get: (target, key) => (key in target ? target[key] : () => {}),
    set: (target, key, value) => {
      target[key] = value;
      return true;
    },
  });
}

export class FakeElement extends FakeEventTarget {
  readonly tagName: string;
  children: (FakeElement | string)[] = [];
  parentNode: FakeElement | null = null;
  className = "";
  dataset: Record<string, string> = {};
  style: Record<string, string> = {};
  hidden = false;
  tabIndex = -1;
  value = "";
  placeholder = "";
  type = "";
  title = "";
  id = "";
  disabled = false;
  width = 300;
  height = 150;
  clientWidth = 1000;
  private attributes = new Map<string, string>();
  private text = "";
  private context: unknown = null;

  constructor(tag: string) {
    super();
    this.tagName = tag.toUpperCase();
  }

  get classList() {
    const names = () => this.className.split(/\s+/).filter(Boolean);
    return {
      add: (...c: string[]) => (this.className = [...new Set([...names(), ...c])].join(" ")),
      remove: (...c: string[]) =>
        (this.className = names()
          .filter((n) => !c.includes(n))
          .join(" ")),
      contains: (c: string) => names().includes(c),
    };
  }

  get textContent(): string {
    return this.text + this.children.map((c) => (typeof c === "string" ? c : c.textContent)).join("");
  }

  set textContent(value: string) {
    for (const c of this.children) if (typeof c !== "string") c.parentNode = null;
    this.children = [];
    this.text = value;
  }

  get firstChild(): FakeElement | string | null {
    return this.children[0] ?? null;
  }

  get childElementCount(): number {
    return this.children.filter((c) => typeof c !== "string").length;
  }

  setAttribute(name: string, value: string): void {
    this.attributes.set(name, String(value));
  }

  getAttribute(name: string): string | null {
    return this.attributes.get(name) ?? null;
  }

  append(...nodes: (FakeElement | string)[]): void {
    for (const node of nodes) {
      if (typeof node !== "string") {
        node.parentNode?.removeChild(node);
        node.parentNode = this;
      }
      this.children.push(node);
    }
  }

  replaceChildren(...nodes: (FakeElement | string)[]): void {
    this.textContent = "";
    this.append(...nodes);
  }

  /** Insert `nodes` into this element's parent, just before it. */
  before(...nodes: FakeElement[]): void {
    const parent = this.parentNode;
    if (!parent) return;
    for (const node of nodes) {
      node.parentNode?.removeChild(node);
      node.parentNode = parent;
      parent.children.splice(parent.children.indexOf(this), 0, node);
    }
  }

  removeChild(node: FakeElement | string): void {
    this.children = this.children.filter((c) => c !== node);
    if (typeof node !== "string") node.parentNode = null;
  }

  remove(): void {
    this.parentNode?.removeChild(this);
  }

  focus(): void {
    fakeDocument.activeElement = this;
  }

  /** A text field's selection: the whole of it. */
  select(): void {
    this.dataset.selected = "all";
  }

  getBoundingClientRect() {
    return { left: 0, top: 0, right: this.clientWidth, bottom: 400, width: this.clientWidth, height: 400, x: 0, y: 0 };
  }

  getContext(kind: string): unknown {
    if (kind !== "2d") return null;
    this.context ??= context2d(this);
    return this.context;
  }

  /** Every descendant (depth first) with tag `tag` (the only selector supported). */
  querySelectorAll(tag: string): FakeElement[] {
    const out: FakeElement[] = [];
    for (const c of this.children) {
      if (typeof c === "string") continue;
      if (c.tagName === tag.toUpperCase()) out.push(c);
      out.push(...c.querySelectorAll(tag));
    }
    return out;
  }

  /** Every descendant (depth first) whose class list holds `name`. */
  findAll(name: string): FakeElement[] {
    const out: FakeElement[] = [];
    for (const c of this.children) {
      if (typeof c === "string") continue;
      if (c.classList.contains(name)) out.push(c);
      out.push(...c.findAll(name));
    }
    return out;
  }

  find(name: string): FakeElement {
    const found = this.findAll(name);
    if (!found.length) throw new Error(`no .${name} under ${this.tagName}.${this.className}`);
    return found[0];
  }
}

class FakeOption extends FakeElement {
  constructor(text = "", value = "") {
    super("option");
    this.textContent = text;
    this.value = value;
  }
}

const fakeDocument = {
  activeElement: null as FakeElement | null,
  body: new FakeElement("body"),
  createElement: (tag: string) => new FakeElement(tag),
};

class FakeMutationObserver {
  static active = new Set<FakeMutationObserver>();
  constructor(readonly callback: () => void) {}
  observe(): void {
    FakeMutationObserver.active.add(this);
  }
  disconnect(): void {
    FakeMutationObserver.active.delete(this);
  }
}

class FakeResizeObserver {
  static active = new Set<FakeResizeObserver>();
  constructor(readonly callback: () => void) {}
  observe(): void {
    FakeResizeObserver.active.add(this);
  }
  disconnect(): void {
    FakeResizeObserver.active.delete(this);
  }
}

export interface FakeDom {
  window: FakeEventTarget;
  /** Run the timers due within `ms` from now (in order), and return how many ran. */
  runTimers(ms?: number): number;
  /** Run the pending animation frames. */
  runFrames(): number;
  pendingTimers(): number;
  pendingFrames(): number;
  /** Resize observers still observing. */
  observers(): number;
  /** Mutation observers still observing. */
  mutationObservers(): number;
  uninstall(): void;
}

/** Install the fakes as `window`, `document`, `Option`, `ResizeObserver`, `MutationObserver` and the frame functions. */
export function installFakeDom(): FakeDom {
  const g = globalThis as Record<string, unknown>;
  const names = [
    "window",
    "document",
    "Option",
    "ResizeObserver",
    "MutationObserver",
    "requestAnimationFrame",
    "cancelAnimationFrame",
  ];
  const saved = names.map((n) => [n, Object.getOwnPropertyDescriptor(g, n)] as const);
  let clock = 0;
  let nextHandle = 1;
  const timers = new Map<number, { at: number; fn: () => void }>();
  const frames = new Map<number, (t: number) => void>();
  const win = Object.assign(new FakeEventTarget(), {
    devicePixelRatio: 1,
    setTimeout: (fn: () => void, ms = 0) => {
      timers.set(nextHandle, { at: clock + ms, fn });
      return nextHandle++;
    },
    clearTimeout: (handle: number) => void timers.delete(handle),
  });
  const define = (name: string, value: unknown) =>
    Object.defineProperty(g, name, { value, configurable: true, writable: true });
  define("window", win);
  define("document", fakeDocument);
  define("Option", FakeOption);
  define("ResizeObserver", FakeResizeObserver);
  define("MutationObserver", FakeMutationObserver);
  define("requestAnimationFrame", (fn: (t: number) => void) => {
    frames.set(nextHandle, fn);
    return nextHandle++;
  });
  define("cancelAnimationFrame", (handle: number) => void frames.delete(handle));
  fakeDocument.activeElement = null;
  return {
    window: win,
    runTimers(ms = 0) {
      const until = clock + ms;
      let ran = 0;
      for (;;) {
        const due = [...timers].filter(([, t]) => t.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
        if (!due) break;
        timers.delete(due[0]);
        clock = due[1].at;
        due[1].fn();
        ran++;
      }
      clock = until;
      return ran;
    },
    runFrames() {
      const due = [...frames];
      frames.clear();
      for (const [, fn] of due) fn(clock);
      return due.length;
    },
    pendingTimers: () => timers.size,
    pendingFrames: () => frames.size,
    observers: () => FakeResizeObserver.active.size,
    mutationObservers: () => FakeMutationObserver.active.size,
    uninstall() {
      for (const [name, descriptor] of saved) {
        if (descriptor) Object.defineProperty(g, name, descriptor);
        else delete g[name];
      }
      targets.clear();
      FakeResizeObserver.active.clear();
      FakeMutationObserver.active.clear();
    },
  };
}

type Handler = (...args: any[]) => void;

/** anywidget's model as the widget uses it: traits with change events, custom messages, sends. */
export class FakeModel<T extends Record<string, any> = Record<string, any>> {
  readonly sent: { content: any; buffers?: unknown }[] = [];
  saves = 0;
  private handlers = new Map<string, Handler[]>();

  constructor(private traits: T) {}

  get<K extends keyof T>(name: K): T[K] {
    return this.traits[name];
  }

  /** Like Backbone: a change event fires at once when the value differs. */
  set<K extends keyof T>(name: K, value: T[K]): void {
    const changed = JSON.stringify(this.traits[name]) !== JSON.stringify(value);
    this.traits[name] = value;
    if (changed) this.trigger(`change:${String(name)}`);
  }

  save_changes(): void {
    this.saves++;
  }

  send(content: any, _callbacks?: unknown, buffers?: unknown): void {
    this.sent.push({ content, buffers });
  }

  on(event: string, fn: Handler): void {
    this.handlers.set(event, [...(this.handlers.get(event) ?? []), fn]);
  }

  off(event?: string | null, fn?: Handler | null): void {
    for (const [name, list] of this.handlers) {
      if (event && name !== event) continue;
      const kept = fn ? list.filter((h) => h !== fn) : [];
      if (kept.length) this.handlers.set(name, kept);
      else this.handlers.delete(name);
    }
  }

  trigger(event: string, ...args: unknown[]): void {
    for (const fn of [...(this.handlers.get(event) ?? [])]) fn(...args);
  }

  handlerCount(): number {
    let n = 0;
    for (const list of this.handlers.values()) n += list.length;
    return n;
  }

  /** The messages sent so far of one type. */
  messages(type: string): any[] {
    return this.sent.map((s) => s.content).filter((c) => c?.type === type);
  }
}
