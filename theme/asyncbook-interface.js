// mdBook's interface in the edition's language: the English strings mdBook
// 0.5.4 hard-codes (titles, labels, the placeholder, theme names, the help
// dialog), at load time and whenever book.js writes one later. The words
// themselves are in asyncbook-edition.js (`translate`), except the help
// dialog's lines, which are below.
//
// mdBook 0.5.4 internals relied on: every element's `title`, `aria-label`
// and `placeholder`; `#mdbook-theme-list button.theme` (the theme names are
// its text); `#mdbook-help-popup` with `.mdbook-help-title` and a `p` per
// line; the ids `#mdbook-searchbar` and `#mdbook-searchresults-header`;
// what book.js writes later into `.tooltiptext` and `code.result`, inside
// `#mdbook-content`.
// Ours: window.asyncbook (asyncbook-edition.js).

(function localisedInterface() {
    'use strict';

    const book = window.asyncbook;
    if (!book) {
        return;
    }
    const { translate } = book;

    // The help dialog's lines, keyed by their English text.
    const HELP = {
        ja: {
            'Press ← or → to navigate between chapters': '<kbd>←</kbd> または <kbd>→</kbd> で前後の章へ移動',
            'Press S or / to search in the book': '<kbd>S</kbd> または <kbd>/</kbd> でこの本を検索',
            'Press ? to show this help': '<kbd>?</kbd> でこのヘルプを表示',
            'Press Esc to hide this help': '<kbd>Esc</kbd> でこのヘルプを閉じる',
        },
        zh: {
            'Press ← or → to navigate between chapters': '按 <kbd>←</kbd> 或 <kbd>→</kbd> 在章节之间跳转',
            'Press S or / to search in the book': '按 <kbd>S</kbd> 或 <kbd>/</kbd> 在本书中搜索',
            'Press ? to show this help': '按 <kbd>?</kbd> 显示此帮助',
            'Press Esc to hide this help': '按 <kbd>Esc</kbd> 关闭此帮助',
        },
    }[book.edition];

    const ATTRIBUTES = ['title', 'aria-label', 'placeholder'];

    // Replaces an attribute's value if it is one of mdBook's English strings.
    function translateAttribute(el, name) {
        const value = el.getAttribute(name);
        const local = value === null ? null : translate(value);
        if (local !== null && local !== value) {
            el.setAttribute(name, local);
        }
    }

    function translateAttributesIn(scope) {
        const selector = ATTRIBUTES.map(a => `[${a}]`).join(',');
        for (const el of [scope, ...scope.querySelectorAll(selector)]) {
            for (const name of ATTRIBUTES) {
                translateAttribute(el, name);
            }
        }
    }

    // The interface as mdBook's templates and book.js left it at load time:
    // the menu bar, theme list, search bar, navigation, help dialog, and the
    // buttons book.js has already put on code blocks.
    translateAttributesIn(document.body);
    // The theme names are the buttons' text.
    for (const button of document.querySelectorAll('#mdbook-theme-list button.theme')) {
        const local = translate(button.textContent.trim());
        if (local !== null) {
            button.textContent = local;
        }
    }
    // The keyboard-shortcut help dialog (index.hbs). Each line is matched by
    // its English text, so the search line stays absent if search is off.
    const help = document.getElementById('mdbook-help-popup');
    if (help) {
        const title = help.querySelector('.mdbook-help-title');
        if (title && translate(title.textContent.trim()) !== null) {
            title.textContent = translate(title.textContent.trim());
        }
        for (const p of help.querySelectorAll('p')) {
            const english = p.textContent.replace(/\s+/g, ' ').trim();
            if (Object.prototype.hasOwnProperty.call(HELP, english)) {
                p.innerHTML = HELP[english]; // our own constant markup
            }
        }
    }
    // index.hbs points the search bar at "searchresults-header", an id that
    // does not exist; the header's id is "mdbook-searchresults-header".
    const searchbar = document.getElementById('mdbook-searchbar');
    if (searchbar && document.getElementById('mdbook-searchresults-header')) {
        searchbar.setAttribute('aria-describedby', 'mdbook-searchresults-header');
    }

    // Strings book.js writes later, after a click or a key: the copy tooltip
    // ("Copied!"), the eye button's new title, the playground's "Running...",
    // "No output" and "Playground Communication: …" in `code.result`. Rather
    // than wrap each of book.js's closures (which we cannot reach), one
    // MutationObserver catches whatever English string they write, whenever
    // they write it, and translates it before the next paint (observer
    // callbacks run as microtasks). (searcher.js's results header needs none:
    // asyncbook-search.js keeps searcher.js from ever searching.)
    const prefix = 'Playground Communication: ';
    function translateText(el) {
        const text = el.textContent;
        const local = translate(text);
        if (local !== null && local !== text) {
            el.textContent = local;
        } else if (el.matches('code.result') && text.startsWith(prefix)) {
            el.textContent = translate(prefix) + text.slice(prefix.length);
        }
    }
    const observer = new MutationObserver(records => {
        for (const record of records) {
            if (record.type === 'attributes') {
                translateAttribute(record.target, record.attributeName);
                continue;
            }
            for (const node of record.addedNodes) {
                if (node instanceof Element) {
                    translateAttributesIn(node);
                }
            }
            const target = record.type === 'characterData'
                ? record.target.parentElement
                : record.target;
            if (target && target.matches('.tooltiptext, code.result')) {
                translateText(target);
            }
        }
    });
    for (const id of ['mdbook-content', 'mdbook-search-wrapper']) {
        const watched = document.getElementById(id);
        if (watched) {
            observer.observe(watched, {
                subtree: true,
                childList: true,
                characterData: true,
                attributes: true,
                attributeFilter: ['title', 'aria-label'],
            });
        }
    }
})();
