// Metadata filters are (name, value) pairs, value null meaning "has an entry named name".
// Names and values may contain "=", so a pair is never joined into one string to be split
// again; only text typed into the filter box is split, at the first "=" as the CLI does
// (docs/reference/query.md#metadata-filters).

import type { Filters, MetadataFilter } from "../kernel/types";

export function sameEntry(a: MetadataFilter, b: MetadataFilter): boolean {
  return a[0] === b[0] && a[1] === b[1];
}

/** `filters` with the metadata filter (name, value) added (unchanged when already there). */
export function withMetadata(filters: Filters, name: string, value: string | null): Filters {
  const entry: MetadataFilter = [name, value];
  if (filters.metadata.some((m) => sameEntry(m, entry))) return filters;
  return { ...filters, metadata: [...filters.metadata, entry] };
}

/** `filters` without the metadata filter `entry`. */
export function withoutMetadata(filters: Filters, entry: MetadataFilter): Filters {
  return { ...filters, metadata: filters.metadata.filter((m) => !sameEntry(m, entry)) };
}

/** How a filter reads in chips and breadcrumbs: "name" or "name=value". */
export function metadataLabel([name, value]: MetadataFilter): string {
  return value === null ? name : `${name}=${value}`;
}

/** Text typed into the filter box, "name" or "name=value", split at the first "=" like `--metadata`. */
export function parseMetadataText(text: string): MetadataFilter {
  const at = text.indexOf("=");
  const pair: MetadataFilter = at < 0 ? [text, null] : [text.slice(0, at), text.slice(at + 1)];
  if (!pair[0]) throw new Error("metadata filter needs a name: name or name=value");
  return pair;
}
