// Moving around within an edition, and to the other one.
//  1. Chapter navigation stays within the edition: the last Japanese
//     chapter's "next" would be the first Chinese chapter, and the first
//     Chinese chapter's "previous" the last Japanese one. asyncbook.css hides
//     these links before this script runs; they are removed here too because
//     book.js's arrow keys follow `.nav-chapters.next` / `.nav-chapters.previous`
//     (the wide links) whether they are visible or not. The mobile links
//     (`.mobile-nav-chapters`) carry the same rel attributes. (asyncbook.css
//     also hides the other edition in the sidebar.)
//  2. The language picker in the menu bar: the same file in the other
//     edition, at the section the reader is at. Both editions give every
//     heading the same id.
//
// mdBook 0.5.4 internals relied on: `a[rel~=prev|next]` as `.nav-chapters`
// (read by book.js's arrow keys) and `.mobile-nav-chapters`;
// `#mdbook-menu-bar .right-buttons`; the menu bar's height (50px) and
// `:target { scroll-margin-top }`; `main` holding the chapter's headings.
// Ours: window.asyncbook (asyncbook-edition.js); asyncbook.css styles
// `a#asyncbook-lang-switch`.

(function navigation() {
    'use strict';

    const book = window.asyncbook;
    if (!book) {
        return;
    }
    const { other } = book;

    // 1. Previous/next links into the other edition.
    for (const link of document.querySelectorAll('a[rel~="prev"], a[rel~="next"]')) {
        if (book.inFolder(link.href, other)) {
            link.remove();
        }
    }

    // 2. The language picker.
    const buttons = document.querySelector('#mdbook-menu-bar .right-buttons');
    if (!buttons) {
        return;
    }
    const target = book.root + other + '/' + book.rest
        .replace(/(^|\/)README\.md$/, '$1index.md')
        .replace(/\.md$/, '.html');
    const SWITCH = {
        ja: { text: '中文', title: '中文版で同じ箇所を開く' },
        zh: { text: '日本語', title: '在日文版中打开同一位置' },
    }[book.edition];

    const link = document.createElement('a');
    link.id = 'asyncbook-lang-switch';
    link.lang = book.lang(other);
    link.hreflang = book.lang(other);
    link.textContent = SWITCH.text;
    link.title = SWITCH.title;
    buttons.prepend(link);

    const main = document.querySelector('main');
    // A heading counts as passed once its top is within this distance of the
    // viewport's top: mdBook's menu bar (--menu-bar-height, 50px) covers that
    // strip, and it puts anchored headings just below it
    // (`:target { scroll-margin-top }`).
    const margin = 80;

    function currentSection() {
        if (location.hash.length > 1) {
            return location.hash;
        }
        let id = '';
        if (main) {
            for (const h of main.querySelectorAll('h1[id], h2[id], h3[id], h4[id], h5[id], h6[id]')) {
                if (h.getBoundingClientRect().top > margin) {
                    break;
                }
                id = h.id;
            }
        }
        return id ? '#' + encodeURIComponent(id) : '';
    }
    function update() {
        link.setAttribute('href', target + currentSection());
    }

    // Kept current so that open-in-new-tab and middle-click also land at the
    // right section; at most every 150 ms while scrolling.
    let scheduled = false;
    window.addEventListener('scroll', () => {
        if (!scheduled) {
            scheduled = true;
            setTimeout(() => {
                scheduled = false;
                update();
            }, 150);
        }
    }, { passive: true });
    window.addEventListener('hashchange', update);
    // Right before it is followed, in case a scroll is still pending.
    link.addEventListener('pointerdown', update);
    link.addEventListener('focus', update);
    update();
})();
