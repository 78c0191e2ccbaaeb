// The searched words, marked on the page a search result leads to
// (?pagefind-highlight=, one parameter per word, written by
// asyncbook-search.js).
//
// Pagefind's own highlight script does the marking: pagefind-highlight.js,
// which the build writes into the Pagefind bundle (mark.js inside). It is
// loaded only on a page that has words to mark. Its options, where they
// differ from its defaults:
//  - markContext `main`: the chapter text, the part Pagefind indexes (its
//    default, `[data-pagefind-body]`, is the same element on edition pages).
//  - exclude: besides its default (`[data-pagefind-ignore]`), the diagrams:
//    mermaid.js turns their source into SVG after load, and a mark would
//    break it; SVG text cannot hold <mark> (as mdBook's searcher.js notes).
//  - diacritics off: a word matches the letters typed (mark.js would
//    otherwise match é for e). The script matches each word as a whole
//    substring and never splits it, which suits CJK text, unspaced.
//  - addStyles off: the marks look like mdBook's own search marks, in every
//    theme (mdBook's `mark` style), not yellow on black.
// Written here, because the script does not do it: as with mdBook's own
// highlights, a click on a mark removes them all, and the parameter, so that
// they do not come back on reload.
//
// mdBook 0.5.4 internals relied on: `main`; the `mark` style of its CSS;
// `pre.mermaid` (mdbook-mermaid). searcher.js's Escape handler unmarks every
// mark.js mark in the content, these too, as it does its own.
// Ours: window.asyncbook (asyncbook-edition.js).

(function highlight() {
    'use strict';

    const book = window.asyncbook;
    if (!book) {
        return;
    }
    const param = book.HIGHLIGHT_PARAM;
    const main = document.querySelector('main');
    if (!main || !new URL(location.href).searchParams.has(param)) {
        return;
    }
    const CLASS = 'pagefind-highlight';

    import(new URL(book.root + 'pagefind/pagefind-highlight.js', document.baseURI).href)
        .then(({ default: PagefindHighlight }) => {
            // Marks at once, from the URL.
            new PagefindHighlight({
                highlightParam: param,
                markContext: main,
                addStyles: false,
                markOptions: {
                    className: CLASS,
                    diacritics: false,
                    exclude: [
                        '[data-pagefind-ignore]', '[data-pagefind-ignore] *',
                        '.mermaid', '.mermaid *', 'svg', 'svg *',
                    ],
                },
            });
        })
        // Opened from a file, the browser refuses the module; nothing to mark.
        .catch(err => console.warn('asyncbook: no search highlighting:', err));

    main.addEventListener('click', e => {
        if (!(e.target instanceof Element && e.target.closest(`mark.${CLASS}`))) {
            return;
        }
        for (const mark of main.querySelectorAll(`mark.${CLASS}`)) {
            const parent = mark.parentNode;
            mark.replaceWith(...mark.childNodes);
            parent.normalize();
        }
        const clean = new URL(location.href);
        clean.searchParams.delete(param);
        history.replaceState(history.state, '', clean.href);
    });
})();
