// Diagrams (```mermaid blocks, which mdbook-mermaid turns into
// <pre class="mermaid">), drawn by mermaid.js after the page has loaded.
//
// mermaid.js is 2.6 MB of script: loaded on every page as mdbook-mermaid
// sets it up, its parsing alone took a third of a second of each page's
// load, on pages without a diagram too. Here it is loaded only on pages
// that have a diagram, and only after `load`, so the text and the code are
// shown and coloured first. The book's renderer copies mdbook-mermaid's
// mermaid.min.js (theme/vendor/, written by tools/book-tools) to
// vendor/mermaid.min.js in the built book.

/* global path_to_root, mermaid */

// window.asyncbookDiagrams is a promise that settles once every diagram is
// drawn (or mermaid.js failed): theme/print.js waits for it.

(function diagrams() {
    'use strict';

    let drawn;
    window.asyncbookDiagrams = new Promise(resolve => {
        drawn = resolve;
    });
    if (!document.querySelector('pre.mermaid')) {
        drawn();
        return;
    }
    // mdBook's dark themes get mermaid's dark theme. Diagrams are drawn once,
    // so a switch between a light and a dark theme reloads the page.
    const dark = ['ayu', 'navy', 'coal'];
    const light = ['light', 'rust'];
    const isDark = () => dark.some(name => document.documentElement.classList.contains(name));
    const drawnDark = isDark();
    for (const name of [...dark, ...light]) {
        document.getElementById(`mdbook-theme-${name}`)?.addEventListener('click', () => {
            if (dark.includes(name) !== drawnDark) {
                window.location.reload();
            }
        });
    }

    function draw() {
        const script = document.createElement('script');
        script.src = `${path_to_root}vendor/mermaid.min.js`;
        script.onload = () => {
            mermaid.initialize({ startOnLoad: false, theme: drawnDark ? 'dark' : 'default' });
            // mermaid marks a diagram processed before it draws it: the
            // promise of run() is what says they are all drawn.
            mermaid.run({ querySelector: 'pre.mermaid' }).catch(err => console.error(err)).finally(drawn);
        };
        script.onerror = () => {
            console.error('mermaid.js did not load: diagrams are shown as text');
            drawn();
        };
        document.head.append(script);
    }

    if (document.readyState === 'complete') {
        draw();
    } else {
        window.addEventListener('load', draw);
    }
})();
