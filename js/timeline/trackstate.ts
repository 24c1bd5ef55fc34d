// The row layout as the `tracks` trait holds it, so it is part of `widget.state` and a view
// opened again (a reload, a second view) shows the same rows: the timeline's `TrackChoice`
// (tracks.ts) without its tiles filter, which is the `filters` trait's.

import type { Tracks } from "../kernel/types";
import type { TrackChoice } from "./tracks";

/** The trait value for the timeline's current choice of a layout of `tiles` tiles (rows 0: all of them). */
export function tracksOf(choice: TrackChoice, tiles: number): Tracks {
  const rows = Math.max(0, Math.round(choice.inView));
  return {
    order: choice.order,
    pinned: [...choice.pinned],
    rows: rows >= tiles ? 0 : rows,
    scroll: Math.max(0, Math.round(choice.scroll)),
  };
}

/** Whether two trait values are the same layout. */
export function sameTracks(a: Tracks, b: Tracks): boolean {
  return (
    a.order === b.order &&
    a.rows === b.rows &&
    a.scroll === b.scroll &&
    a.pinned.length === b.pinned.length &&
    a.pinned.every((t, i) => t === b.pinned[i])
  );
}

/** Set the timeline's choice of a layout of `tiles` tiles from the trait (its tiles filter kept); true when anything changed. */
export function applyTracks(choice: TrackChoice, tracks: Tracks, tiles: number): boolean {
  if (sameTracks(tracksOf(choice, tiles), tracks)) return false;
  choice.order = tracks.order;
  choice.pinned = [...tracks.pinned];
  choice.inView = tracks.rows;
  choice.scroll = tracks.scroll;
  return true;
}
