// The buttons of code blocks on edition pages: the copy button copies the
// whole program, hidden lines included, and the eye button keeps working
// once its title is translated.
//
// book.js adds the buttons (`pre > .buttons > button`) and wires them in
// closures we cannot reach; we answer their clicks first, from a
// capture-phase listener on window, and stop book.js from answering too.
//  - The copy button (`button.clip-button`, handled by ClipboardJS through a
//    click listener on document.body) copies only the visible lines
//    (innerText). Ours copies the code element's whole text: hidden lines
//    (`span.boring`, including mdBook's own `fn main` wrapper) are in
//    textContent once theme/hidden-code.js has put them back in place, so the
//    clipboard gets the complete program the eye button shows. Other blocks
//    (```text, ```toml …) are copied as they are.
//  - The eye button's handler in book.js decides what to do by comparing its
//    title with "Show hidden lines" / "Hide lines", which breaks once the
//    title is translated, so we toggle it ourselves: the same class
//    (`hide-boring` on the code) and icons (`template#fa-eye`,
//    `template#fa-eye-slash`) book.js uses, after the hidden lines are in
//    place.
// Loaded before asyncbook-interface.js: the eye button is found by its
// English title, before that file translates it.
//
// mdBook 0.5.4 internals relied on: `pre > .buttons > button`; the eye
// button's English titles; `button.clip-button` with its `i.tooltiptext` and
// the `tooltipped` class (book.js's tooltip); `span.boring` and the
// `hide-boring` class; `template#fa-eye` / `#fa-eye-slash`; the `editable`
// class and `window.ace` (editable blocks only).
// Ours: window.asyncbook (asyncbook-edition.js), window.asyncbookHiddenCode
// (hidden-code.js).

(function codeButtons() {
    'use strict';

    const book = window.asyncbook;
    const hiddenCode = window.asyncbookHiddenCode;
    if (!book) {
        return;
    }
    const { translate } = book;
    const COPY_PROGRAM = {
        ja: 'プログラム全体をコピー（隠れた行も含む）',
        zh: '复制完整程序（包括隐藏的行）',
    }[book.edition];

    for (const pre of document.querySelectorAll('pre')) {
        const code = pre.querySelector('code');
        const buttons = pre.querySelector(':scope > .buttons');
        if (!code || !buttons) {
            continue;
        }
        for (const button of buttons.querySelectorAll('button')) {
            const title = button.getAttribute('title');
            if (title === 'Show hidden lines' || title === 'Hide lines') {
                button.classList.add('asyncbook-toggle-hidden');
            }
            if (button.classList.contains('clip-button') && code.querySelector('.boring')) {
                button.title = COPY_PROGRAM;
                button.setAttribute('aria-label', COPY_PROGRAM);
            }
        }
    }

    window.addEventListener('click', e => {
        const button = e.target instanceof Element && e.target.closest('pre > .buttons > button');
        if (!button) {
            return;
        }
        const code = button.closest('pre').querySelector('code');
        if (button.classList.contains('clip-button')) {
            e.stopImmediatePropagation();
            e.preventDefault();
            copyCode(button, code);
        } else if (button.classList.contains('asyncbook-toggle-hidden')) {
            e.stopImmediatePropagation();
            const show = code.classList.contains('hide-boring');
            const toggle = () => {
                code.classList.toggle('hide-boring', !show);
                const icon = document.getElementById(show ? 'fa-eye-slash' : 'fa-eye');
                if (icon) {
                    button.innerHTML = icon.innerHTML;
                }
                const title = translate(show ? 'Hide lines' : 'Show hidden lines');
                button.title = title;
                button.setAttribute('aria-label', title);
            };
            if (show) {
                // A second press while the lines load changes nothing: the
                // first one shows them when they are in place.
                if (!showPending.has(code)) {
                    showPending.add(code);
                    const settle = () => showPending.delete(code);
                    hiddenCode.fill(code).then(() => {
                        settle();
                        toggle();
                    }, err => {
                        settle();
                        console.error(err);
                    });
                }
            } else {
                toggle();
            }
        }
    }, true);

    // Copies at once when the block's lines are in place (they usually are:
    // they start loading when the pointer or the focus reaches the block).
    // Otherwise the clipboard is handed a promise of the text
    // (ClipboardItem), which browsers accept within the click, where a
    // writeText after the wait may be refused.
    // The blocks whose eye button waits for their lines.
    const showPending = new WeakSet();

    function copyCode(button, code) {
        if (hiddenCode.filled(code)) {
            copyText(button, code);
            return;
        }
        const text = hiddenCode.fill(code).then(() => code.textContent);
        if (navigator.clipboard?.write && window.ClipboardItem && window.isSecureContext) {
            const item = new ClipboardItem({
                'text/plain': text.then(t => new Blob([t], { type: 'text/plain' })),
            });
            navigator.clipboard.write([item]).then(() => tooltip(button, true), () => {
                // Refused (or the lines did not load): try the other ways.
                text.then(() => copyText(button, code), err => {
                    console.error(err);
                    tooltip(button, false);
                });
            });
        } else {
            text.then(() => copyText(button, code), err => {
                console.error(err);
                tooltip(button, false);
            });
        }
    }

    // book.js's tooltip: the button's `i.tooltiptext` child, shown by the
    // `tooltipped` class; its own mouseout listener hides it again.
    function tooltip(button, ok) {
        const tip = button.querySelector('.tooltiptext');
        if (tip) {
            tip.textContent = translate(ok ? 'Copied!' : 'Clipboard error!');
            button.classList.add('tooltipped');
        }
    }

    // Copies the block's whole text (its lines in place).
    function copyText(button, code) {
        let text = code.textContent;
        // An editable block (ACE editor, `editable` class) keeps its text in the
        // editor, as book.js's playground_text() knows.
        if (window.ace && code.classList.contains('editable')) {
            text = window.ace.edit(code).getValue();
        }
        const done = ok => tooltip(button, ok);
        const writeText = navigator.clipboard && window.isSecureContext
            ? navigator.clipboard.writeText(text)
            : Promise.reject(new Error('no async clipboard'));
        writeText.then(() => done(true), () => {
            done(copyWithTextarea(text));
            button.focus();
        });
    }

    // For pages served over plain http from another host (no async clipboard
    // API there) or when it is refused: the old way, from a selected textarea.
    function copyWithTextarea(text) {
        const area = document.createElement('textarea');
        area.value = text;
        area.setAttribute('readonly', '');
        area.style.cssText = 'position: fixed; top: 0; left: 0; opacity: 0;';
        document.body.append(area);
        area.select();
        let ok = false;
        try {
            ok = document.execCommand('copy');
        } catch {
            ok = false;
        }
        area.remove();
        return ok;
    }
})();
