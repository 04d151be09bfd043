// Swagger UI's script, imported `with { type: "file" }` by assets.ts: its path
// (inside the binary once compiled). Its stylesheet is typed by "*.css".
declare module "swagger-ui-dist/swagger-ui-bundle.js" {
  const path: string;
  export default path;
}
