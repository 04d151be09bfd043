// Bun imports these files as text (`with { type: "text" }`), embedding them in the binary.
declare module "*.service" {
  const text: string;
  export default text;
}
