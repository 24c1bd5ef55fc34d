// Files bundled as text (esbuild's text loader, package.json): the raster worker's own bundle.
declare module "*.txt" {
  const text: string;
  export default text;
}
