/**
 * The docs page's initializer script (/docs/static/swagger-initializer.js), carrying the
 * document inline. @fastify/swagger-ui's own initializer waits for the load event and then has
 * swagger-ui fetch ./json: a headless `chromium --screenshot` or `--dump-dom`, taken at the load
 * event, caught only the "loading" spinner unless given `--virtual-time-budget`. With swagger-ui's
 * `spec` option, run as soon as the script runs (the scripts before it are loaded: they are
 * classic scripts at the end of the body), the first render needs no request.
 */

/** swagger-ui's options as @fastify/swagger-ui passes them, with the page's own `uiConfig`. */
export function docsPageInitializer(document: unknown, uiConfig: Record<string, unknown>): string {
  // JSON is a JavaScript expression (ES2019 allows U+2028/U+2029 in strings); `<` is escaped anyway
  // so that the script stays safe if it is ever inlined in the HTML.
  const literal = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');
  return `// The docs page (src/http/plugins/docs-page.ts): the document is inline, so the first render needs no fetch.
(function () {
  var page = window.location.href.split('#', 1)[0];
  if (!page.endsWith('/')) page += '/';
  var json = new URL('json', page).href;
  var config = Object.assign(
    {
      dom_id: '#swagger-ui',
      deepLinking: true,
      presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
      plugins: [SwaggerUIBundle.plugins.DownloadUrl],
      layout: 'StandaloneLayout',
    },
    ${literal(uiConfig)},
    {
      // The inline document wins over url (swagger-ui 5), which only names it.
      url: json,
      spec: ${literal(document)},
      oauth2RedirectUrl: new URL('static/oauth2-redirect.html', page).href,
    }
  );
  window.ui = SwaggerUIBundle(config);
  // The top bar shows (and "Explore" reloads) the same document, served at ./json; relative
  // servers ("/v1") resolve against it as against the page.
  window.ui.specActions.updateUrl(json);
})();
`;
}
