// Colour classes: class 0 is "filtered out" (grey); 1..31 index the legend of the colour mode.

export const GREY: [number, number, number] = [206, 208, 212];

const KIND: Record<string, [number, number, number]> = {
  exchange: [232, 122, 44],
  compute: [52, 120, 198],
  synchronization: [214, 62, 82],
  idle: [178, 190, 160],
};

// Tableau-like categorical palette (31 entries) for kernels.
const PALETTE: [number, number, number][] = [
  [78, 121, 167], [242, 142, 43], [225, 87, 89], [118, 183, 178], [89, 161, 79],
  [237, 201, 72], [176, 122, 161], [255, 157, 167], [156, 117, 95], [186, 176, 172],
  [31, 119, 180], [255, 127, 14], [44, 160, 44], [214, 39, 40], [148, 103, 189],
  [140, 86, 75], [227, 119, 194], [127, 127, 127], [188, 189, 34], [23, 190, 207],
  [57, 59, 121], [99, 121, 57], [140, 109, 49], [132, 60, 57], [123, 65, 115],
  [82, 84, 163], [181, 207, 107], [231, 186, 82], [214, 97, 107], [206, 109, 189], [90, 90, 90],
];

/** RGB for each class index of a legend (index 0 = grey); `noKernel` names the samples without a kernel. */
export function classColours(mode: string, legend: string[], noKernel: string): [number, number, number][] {
  const out: [number, number, number][] = [GREY];
  legend.forEach((name, i) => {
    if (mode === "kind") out.push(KIND[name] ?? PALETTE[i % PALETTE.length]);
    else if (name === noKernel) out.push([150, 150, 150]);
    else out.push(PALETTE[i % PALETTE.length]);
  });
  while (out.length < 32) out.push([0, 0, 0]);
  return out;
}

export function kindColour(kind: string): [number, number, number] {
  return KIND[kind] ?? [150, 150, 150];
}

export function css([r, g, b]: [number, number, number], alpha = 1): string {
  return alpha >= 1 ? `rgb(${r},${g},${b})` : `rgba(${r},${g},${b},${alpha})`;
}
