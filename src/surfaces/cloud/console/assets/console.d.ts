// console.js is browser code imported as text by ../assets.ts.
declare const text: string;
export default text;
