// Starts the embedded Swagger UI on Relay's own OpenAPI document. A separate
// file, not an inline script, so the page's CSP can stay `script-src 'self'`.
window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  docExpansion: "list",
  // The default sends the document to validator.swagger.io; the page stays offline.
  validatorUrl: null,
});
