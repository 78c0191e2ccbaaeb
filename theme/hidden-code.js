// Hidden code lines, loaded when the reader reaches for them.
//
// Every ```rust block of the book is a whole program, most of it hidden
// (the `mod listings { … }` frame). The book's renderer (tools/mdbook-asyncbook,
// src/hidden.rs) takes those lines out of the pages: each run of them is an
// empty placeholder, <span class="boring" data-hidden="ID ID …">, and each
// distinct chunk is a script of its own, hidden/ID.js, which calls
// asyncbookHidden(ID, text). So a page carries, and highlight.js colours,
// only what the reader sees. A long block (appendix C shows whole files) has
// its visible text as a placeholder too, <span data-lazy="ID">, filled as
// the block comes near the screen.
//
// This file puts the chunks back in place ("fills" a block) before anything
// needs them: the eye button shows them, the copy button copies them
// (theme/asyncbook-code-buttons.js), and the run button (book.js, which
// sends the code element's textContent to the playground) sends them. A
// block's chunks start loading as soon as the pointer or the focus reaches
// it, so they are usually there by the time of the click. Scripts, not
// fetch(), so that a book opened from files works too.
//
// Exposes window.asyncbookHiddenCode = { fill(code) → Promise, filled(code) }.

/* global path_to_root, hljs */

(function hiddenCode() {
    'use strict';

    const texts = new Map(); // chunk id -> text
    const waiting = new Map(); // chunk id -> { promise, resolve, reject }

    // Called by each hidden/ID.js.
    window.asyncbookHidden = (id, text) => {
        texts.set(id, text);
        waiting.get(id)?.resolve(text);
        waiting.delete(id);
    };

    function load(id) {
        if (texts.has(id)) {
            return Promise.resolve(texts.get(id));
        }
        if (!waiting.has(id)) {
            let resolve, reject;
            const promise = new Promise((res, rej) => {
                resolve = res;
                reject = rej;
            });
            waiting.set(id, { promise, resolve, reject });
            const script = document.createElement('script');
            script.src = `${path_to_root}hidden/${id}.js`;
            const fail = what => {
                waiting.delete(id);
                script.remove();
                reject(new Error(`hidden code ${id} ${what}`));
            };
            script.onerror = () => fail('did not load');
            // A script that ran but did not hand over its text (a server
            // that answers a missing file with a page, say) fails too,
            // rather than leave the buttons waiting for ever.
            script.onload = () => {
                if (!texts.has(id)) {
                    fail('loaded without its text');
                }
            };
            document.head.append(script);
        }
        return waiting.get(id).promise;
    }

    const PLACEHOLDERS = 'span[data-hidden]:not([data-filled]), span[data-lazy]:not([data-filled])';
    const placeholders = code => [...code.querySelectorAll(PLACEHOLDERS)];

    // Whether every hidden line of the block is in place.
    function filled(code) {
        return placeholders(code).length === 0;
    }

    // Puts every hidden line of the block in place, coloured as book.js
    // colours a block; resolves when done (at once if it already is).
    const filling = new WeakMap();
    function fill(code) {
        if (filled(code)) {
            return Promise.resolve();
        }
        if (!filling.has(code)) {
            const work = Promise.all(placeholders(code).map(async span => {
                const ids = span.dataset.hidden ?? span.dataset.lazy;
                const parts = await Promise.all(ids.split(' ').map(load));
                const text = parts.join('');
                // Coloured in the block's language, as book.js colours it
                // (`rs`, appendix C's tests, is highlight.js's Rust too).
                const language = [...code.classList].find(c => c.startsWith('language-'))?.slice('language-'.length);
                if (window.hljs && language && hljs.getLanguage(language)) {
                    span.innerHTML = hljs.highlight(language, text, true).value;
                } else {
                    span.textContent = text;
                }
                span.dataset.filled = '';
            }));
            filling.set(code, work);
            // Forget the work when it ends, either way (a failed fill can be
            // tried again); the caller sees its outcome.
            const forget = () => filling.delete(code);
            work.then(forget, forget);
        }
        return filling.get(code);
    }

    window.asyncbookHiddenCode = { fill, filled };

    // A long block's visible text (data-lazy, appendix C's whole files) is
    // loaded as the block comes near the screen.
    const lazy = [...document.querySelectorAll('pre > code')].filter(code => code.querySelector('span[data-lazy]'));
    if (lazy.length && 'IntersectionObserver' in window) {
        const observer = new IntersectionObserver(entries => {
            for (const entry of entries.filter(e => e.isIntersecting)) {
                observer.unobserve(entry.target);
                fill(entry.target).catch(err => console.error(err));
            }
        }, { rootMargin: '100% 0px' });
        lazy.forEach(code => observer.observe(code));
    } else {
        lazy.forEach(code => fill(code).catch(err => console.error(err)));
    }

    // Start loading early: when the pointer enters a block, or the focus
    // reaches one of its buttons. Failures surface when a button needs it.
    const early = e => {
        const pre = e.target instanceof Element && e.target.closest('pre');
        const code = pre?.querySelector(':scope > code');
        if (code && !filled(code)) {
            fill(code).catch(() => {});
        }
    };
    document.addEventListener('pointerover', early, { passive: true });
    document.addEventListener('focusin', early);
    document.addEventListener('touchstart', early, { passive: true });

    // The blocks whose run waits for their lines.
    const runPending = new WeakSet();

    // The run button (book.js reads the code when it is clicked): fill the
    // block first, then let the click through, once however often it was
    // pressed meanwhile.
    window.addEventListener('click', e => {
        const button = e.target instanceof Element && e.target.closest('pre > .buttons > button.play-button');
        const code = button?.closest('pre').querySelector(':scope > code');
        if (!code || filled(code)) {
            return;
        }
        e.stopImmediatePropagation();
        e.preventDefault();
        if (runPending.has(code)) {
            return;
        }
        runPending.add(code);
        fill(code).then(() => {
            runPending.delete(code);
            button.click();
        }, err => {
            runPending.delete(code);
            console.error(err);
        });
    }, true);
})();
