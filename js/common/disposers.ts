// Every listener, observer and timer the widget starts is registered here, so taking a view
// down is one call (`Disposers.dispose`) and nothing keeps running after it.

export type Disposer = () => void;

type EventMap = HTMLElementEventMap & WindowEventMap;

/** `target.addEventListener(type, fn)`, returning what removes it again. */
export function listen<K extends keyof EventMap>(
  target: EventTarget,
  type: K,
  fn: (event: EventMap[K]) => void,
  options?: AddEventListenerOptions,
): Disposer {
  const listener = fn as EventListener;
  target.addEventListener(type, listener, options);
  return () => target.removeEventListener(type, listener, options);
}

/** A Backbone-style model's event callback: each event passes arguments of its own. */
// biome-ignore lint/suspicious/noExplicitAny: handlers declare the arguments their event passes; unknown[] would refuse them
export type Callback = (...args: any[]) => void;

/** The slice of a Backbone-style model (anywidget's) that listeners need. */
interface Emitter<E extends string> {
  on(event: E, callback: Callback): void;
  off(event: E, callback: Callback): void;
}

/** A restartable one-shot timer (`start` cancels the pending run first). */
export interface Timer {
  start(ms: number): void;
  cancel(): void;
  readonly pending: boolean;
}

/**
 * A bag of disposers, run in reverse order of registration by `dispose()`. One failing
 * disposer does not stop the others; a disposed bag disposes what is added to it at once.
 * `child()` gives a bag for things that come and go (rows re-rendered on each update):
 * `clear()` it before rebuilding, and the parent disposes it with everything else.
 */
export class Disposers {
  private items: Disposer[] = [];
  private disposed = false;

  /** How many disposers are registered (for tests). */
  get size(): number {
    return this.items.length;
  }

  add(disposer: Disposer): Disposer {
    if (this.disposed) disposer();
    else this.items.push(disposer);
    return disposer;
  }

  listen<K extends keyof EventMap>(
    target: EventTarget,
    type: K,
    fn: (event: EventMap[K]) => void,
    options?: AddEventListenerOptions,
  ): void {
    if (!this.disposed) this.add(listen(target, type, fn, options));
  }

  /** `model.on(event, fn)` until disposed. */
  on<E extends string>(model: Emitter<E>, event: E, fn: Callback): void {
    if (this.disposed) return;
    model.on(event, fn);
    this.add(() => model.off(event, fn));
  }

  timer(fn: () => void): Timer {
    let handle = 0;
    const timer: Timer = {
      start: (ms) => {
        timer.cancel();
        if (this.disposed) return;
        handle = window.setTimeout(() => {
          handle = 0;
          fn();
        }, ms);
      },
      cancel: () => {
        if (handle) window.clearTimeout(handle);
        handle = 0;
      },
      get pending() {
        return handle !== 0;
      },
    };
    this.add(timer.cancel);
    return timer;
  }

  child(): Disposers {
    const bag = new Disposers();
    this.add(() => bag.dispose());
    return bag;
  }

  /** Run and forget every disposer; the bag stays usable. */
  clear(): void {
    const items = this.items;
    this.items = [];
    for (let i = items.length - 1; i >= 0; i--) {
      try {
        items[i]();
      } catch (error) {
        console.warn("ipu-nb widget: a disposer failed", error);
      }
    }
  }

  /** Run every disposer; anything added later is disposed at once. */
  dispose(): void {
    this.disposed = true;
    this.clear();
  }
}
