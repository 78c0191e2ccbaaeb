// The print pages of the editions (print-ja.html, print-zh.html, written by
// the book's renderer, tools/mdbook-asyncbook/src/print.rs) open the print
// dialog once the page is ready to print. mdBook's own print page does so
// 100 ms after `load`, before mermaid.js has drawn the diagrams (it draws
// them after `load`); the renderer calls this instead.

window.asyncbookPrintWhenReady = function asyncbookPrintWhenReady() {
    'use strict';
    // Diagrams drawn (or given up on: mermaid marks them processed either
    // way) and images loaded, or 15 seconds, whichever comes first.
    const ready = () => [...document.querySelectorAll('pre.mermaid')]
        .every(pre => pre.dataset.processed || pre.querySelector('svg'))
        && [...document.images].every(img => img.complete);
    const started = Date.now();
    (function wait() {
        if (ready() || Date.now() - started > 15000) {
            window.print();
        } else {
            window.setTimeout(wait, 100);
        }
    })();
};
