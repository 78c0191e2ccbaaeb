// The print pages of the editions (print-ja.html, print-zh.html, written by
// the book's renderer, tools/mdbook-asyncbook/src/print.rs) open the print
// dialog once the page is ready to print. mdBook's own print page does so
// 100 ms after `load`, before mermaid.js has drawn the diagrams (it draws
// them after `load`); the renderer calls this instead.

window.asyncbookPrintWhenReady = function asyncbookPrintWhenReady() {
    'use strict';
    // Diagrams drawn (theme/diagrams.js's promise: mermaid marks a diagram
    // processed before it has drawn it), fonts and images loaded; or, on a
    // device too slow for that, after a minute, as the page is then.
    const images = Promise.all([...document.images].map(img => img.complete
        ? Promise.resolve()
        : new Promise(done => {
            img.addEventListener('load', done, { once: true });
            img.addEventListener('error', done, { once: true });
        })));
    const ready = Promise.all([window.asyncbookDiagrams, document.fonts.ready, images]);
    const late = new Promise(done => window.setTimeout(done, 60000));
    Promise.race([ready, late]).then(() => window.print());
};
