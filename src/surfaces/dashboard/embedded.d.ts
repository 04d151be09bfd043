// Types of the files assets.ts imports `with { type: "text" }`: their text.
declare module "*.svg" {
  const text: string;
  export default text;
}
declare module "*.css" {
  const text: string;
  export default text;
}
declare module "uplot/dist/uPlot.iife.min.js" {
  const text: string;
  export default text;
}
