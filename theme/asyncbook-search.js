// The search box on edition pages, answered by Pagefind, which can search
// Japanese and Chinese (mdBook's elasticlunr index drops their words).
//
// The build writes a Pagefind bundle to <book>/pagefind/ with one index per
// edition: Pagefind indexes each page under its <html lang> (which the
// book's renderer sets, "ja" or "zh-CN") and answers from the index of the
// page's own lang, so results stay in the reader's edition without a filter
// here. The renderer marks `<main>` as the part to index.
//
// Why mdBook's search UI with glue code rather than Pagefind's own UI
// (pagefind-ui.js or its components, which the bundle also holds): the
// reader keeps mdBook's search bar, its keys (S or / to open, arrows,
// Enter, Escape), the ?search= links and the look of every theme, and two
// things Pagefind's UI cannot do for Japanese and Chinese readers are done
// here:
//  - IME composition. Japanese and Chinese are typed through an input
//    method: Pagefind's UI searches on every `input` event, also those of an
//    unfinished conversion (half-typed kana, pinyin), and has no hook to wait.
//    Here a query starts when a composition ends, and the Enter key that
//    confirms a conversion does not open a result.
//  - CJK exact matches. Pagefind splits a Japanese or Chinese query into
//    dictionary words, and its UI has no hook to filter or re-rank the list.
//    Here, when some results contain the query as typed, only those are
//    listed, most occurrences first (see show()).
//
// We keep mdBook's search UI — the toggle button, `#mdbook-searchbar`,
// `#mdbook-searchresults-outer`, `#mdbook-searchresults-header`,
// `ul#mdbook-searchresults` and its keyboard handling — and only answer the
// queries. searcher.js (loaded before us) has already wired itself up:
//  - showSearch() loads mdBook's index by adding a script with id
//    "mdbook-search-index", unless an element with that id exists, and
//    init() runs from that script's onload. We add a placeholder with that
//    id (or, if ?search= in the URL made it start loading already, drop its
//    onload), so elasticlunr is never loaded and never writes results.
//  - Its keyup listener on the search bar runs doSearch() and rewrites the
//    URL; a capture-phase listener on window stops it (keyup events aimed at
//    the search bar never reach it). We search on `input`, which also sees
//    pasting and the end of an IME composition.
//  - Its keydown listener on document opens the first result on Enter, moves
//    through results with the arrows (`li.focus`) and closes on Escape. We
//    keep the arrows and Escape (they work on our list), take Enter (so that
//    a search still waiting for its debounce finishes first), and hide from
//    it the keys that confirm an IME conversion.
//  - On load and in window.onpopstate it reads ?search= (opens the bar,
//    loads its index) and ?highlight= (marks words). We keep our query in
//    ?pagefind-search= and the words to mark in ?pagefind-highlight=
//    (asyncbook-highlight.js), which it does not know, and replace its
//    onpopstate with ours.
// On file:// pages the browser refuses to import the ES module, and mdBook's
// own index is switched off (book.toml): the search box says that searching
// needs the book served over HTTP.
//
// mdBook 0.5.4 internals relied on: `#mdbook-searchbar`,
// `#mdbook-searchbar-outer` (`searching` class = spinner),
// `#mdbook-search-wrapper`, `#mdbook-search-toggle`,
// `#mdbook-searchresults-outer`, `#mdbook-searchresults-header`,
// `ul#mdbook-searchresults` (`li > a` and `span.teaser`, `li.focus`), the
// `#mdbook-search-index` id searcher.js checks before loading its index,
// `window.onpopstate`, its ?search= / ?highlight= parameters, and the
// sidebar's links (`#mdbook-sidebar a[href]`, toc.js) for result titles.
// Ours: window.asyncbook (asyncbook-edition.js).

(function search() {
    'use strict';

    const book = window.asyncbook;
    if (!book) {
        return;
    }
    const { root, translate, HIGHLIGHT_PARAM } = book;
    const SEARCH_PARAM = 'pagefind-search';
    const words = {
        ja: {
            resultCount: (n, term) => `「${term}」の検索結果：${n} 件`,
            noResults: term => `「${term}」に一致する結果はありません。`,
            searchUnavailable: '検索インデックスを読み込めませんでした。',
            searchNeedsServer: 'ファイルから直接開いたページでは検索を使えません。mdbook serve で表示するか、HTTP で配信してください。',
        },
        zh: {
            resultCount: (n, term) => `找到 ${n} 个与“${term}”匹配的结果`,
            noResults: term => `没有找到与“${term}”匹配的结果。`,
            searchUnavailable: '无法加载搜索索引。',
            searchNeedsServer: '直接以文件方式打开的页面无法使用搜索。请用 mdbook serve 打开本书，或通过 HTTP 提供本书的网页。',
        },
    }[book.edition];

    const bar = document.getElementById('mdbook-searchbar');
    const barOuter = document.getElementById('mdbook-searchbar-outer');
    const wrapper = document.getElementById('mdbook-search-wrapper');
    const outer = document.getElementById('mdbook-searchresults-outer');
    const header = document.getElementById('mdbook-searchresults-header');
    const list = document.getElementById('mdbook-searchresults');
    const toggle = document.getElementById('mdbook-search-toggle');
    if (!bar || !barOuter || !wrapper || !outer || !header || !list) {
        return;
    }
    const fromFile = location.protocol === 'file:';

    const loading = document.getElementById('mdbook-search-index');
    if (loading) {
        loading.onload = null;
    } else {
        const placeholder = document.createElement('meta');
        placeholder.id = 'mdbook-search-index';
        document.head.append(placeholder);
    }

    let pagefindModule = null;
    let failedLoads = 0;
    function pagefind() {
        if (fromFile) {
            return Promise.reject(new Error('opened from a file: no search index can be loaded'));
        }
        if (!pagefindModule) {
            const url = new URL(root + 'pagefind/pagefind.js', document.baseURI);
            // A failed import() is remembered by the browser for that URL;
            // a retry asks for another one (Pagefind finds its files from
            // the path and ignores the query).
            if (failedLoads > 0) {
                url.searchParams.set('retry', String(failedLoads));
            }
            pagefindModule = import(url.href).then(async pf => {
                // Excerpts start and end mid-sentence: say so.
                await pf.options({ excerptEllipsis: '…' });
                await pf.init();
                return pf;
            }).catch(err => {
                // Not cached: the next search loads it again.
                pagefindModule = null;
                failedLoads += 1;
                throw err;
            });
        }
        return pagefindModule;
    }

    let shownTerm = null; // the term the list shows
    let generation = 0; // answers to older queries are dropped
    let debounce = 0;
    let running = Promise.resolve();

    function search(term) {
        clearTimeout(debounce);
        debounce = 0;
        if (term === shownTerm) {
            return running;
        }
        shownTerm = term;
        const mine = ++generation;
        setSearchParam(term);
        if (term === '') {
            list.replaceChildren();
            header.textContent = '';
            outer.classList.add('hidden');
            barOuter.classList.remove('searching');
            return (running = Promise.resolve());
        }
        barOuter.classList.add('searching');
        running = (async () => {
            try {
                const pf = await pagefind();
                const found = await pf.search(term);
                const pages = await Promise.all(found.results.slice(0, 30).map(r => r.data()));
                if (mine === generation) {
                    show(term, pages);
                }
            } catch (err) {
                if (mine === generation) {
                    console.warn('asyncbook: Pagefind search is unavailable:', err);
                    list.replaceChildren();
                    header.textContent = fromFile ? words.searchNeedsServer : words.searchUnavailable;
                    outer.classList.remove('hidden');
                    shownTerm = null; // try again on the next keystroke
                }
            } finally {
                if (mine === generation) {
                    barOuter.classList.remove('searching');
                }
            }
        })();
        return running;
    }

    // One list item per matching section (Pagefind's sub_results, best
    // first, at most three per page), each `li > a` as mdBook's own results
    // are, linking to the section with the terms to highlight there.
    //
    // Pagefind splits Chinese and Japanese into dictionary words, and a
    // term it does not know is split too: 执行器 becomes 执行 + 器, and a
    // page about 计时器 matches on 器 alone. A reader searching CJK text
    // means the string itself, so when some results contain the query as
    // it was typed, only those are shown (pages with more occurrences
    // first), and the whole string is what is highlighted. Otherwise
    // Pagefind's own results and ranking stand.
    function show(term, pages) {
        const exactPages = pages
            .map((page, rank) => ({ page, rank, count: occurrences(page.content || '', term) }))
            .filter(p => p.count > 0)
            .sort((a, b) => b.count - a.count || a.rank - b.rank)
            .map(p => p.page);
        const exact = exactPages.length > 0;
        const items = [];
        for (const page of exact ? exactPages : pages) {
            let sections = page.sub_results && page.sub_results.length
                ? [...page.sub_results]
                : [{ title: page.meta.title, url: page.url, excerpt: page.excerpt, locations: page.locations }];
            sections.sort((a, b) => (b.locations || []).length - (a.locations || []).length);
            if (exact) {
                const withTerm = sections.filter(sec => occurrences(textOf(sec.excerpt || ''), term) > 0);
                sections = withTerm.length ? withTerm : sections.slice(0, 1);
            }
            for (const section of sections.slice(0, 3)) {
                items.push(resultItem(term, page, section, items.length, exact));
            }
        }
        list.replaceChildren(...items);
        header.textContent = items.length
            ? words.resultCount(items.length, term)
            : words.noResults(term);
        outer.classList.remove('hidden');
    }

    // How often `term` occurs in `text`, ignoring case and runs of spaces.
    function occurrences(text, term) {
        const needle = normalise(term);
        if (!needle) {
            return 0;
        }
        const haystack = normalise(text);
        let count = 0;
        for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) {
            count++;
        }
        return count;
    }

    function normalise(text) {
        return text.replace(/\s+/g, ' ').trim().toLowerCase();
    }

    // The text of an excerpt, without its markup.
    function textOf(html) {
        const template = document.createElement('template');
        template.innerHTML = html;
        return template.content.textContent;
    }

    function resultItem(term, page, section, index, exact) {
        const li = document.createElement('li');
        const a = document.createElement('a');
        // The words to mark on the page, one parameter each, as Pagefind's
        // highlight script reads them (asyncbook-highlight.js). Not through
        // Pagefind's own `highlightParam` option: for Japanese and Chinese it
        // passes on the dictionary words it split the query into (执行器
        // becomes 执行 and 器), and the page would mark every 器. These are
        // the words as typed, split at spaces only.
        const url = new URL(section.url, document.baseURI);
        url.searchParams.delete(HIGHLIGHT_PARAM);
        for (const word of term.split(/\s+/).filter(Boolean)) {
            url.searchParams.append(HIGHLIGHT_PARAM, word);
        }
        a.href = url.href;
        const metaTitle = page.meta && page.meta.title ? page.meta.title : '';
        const title = chapterTitle(page.url) || metaTitle || url.pathname;
        a.textContent = section.title && section.title !== metaTitle && section.title !== title
            ? `${title} » ${section.title}`
            : title;
        const teaser = document.createElement('span');
        teaser.className = 'teaser';
        teaser.id = 'asyncbook-teaser-' + index;
        teaser.setAttribute('aria-label', translate('Search Result Teaser'));
        const html = section.excerpt || page.excerpt || '';
        teaser.append(exact && occurrences(textOf(html), term) > 0 ? markExactly(textOf(html), term) : excerpt(html));
        a.setAttribute('aria-details', teaser.id);
        li.append(a, teaser);
        return li;
    }

    // The chapter's title as the sidebar (mdBook's toc.js) shows it. Pagefind
    // takes a page's title from its first <h1>, which may be the menu bar's
    // book title rather than the chapter's.
    function chapterTitle(pageUrl) {
        const path = new URL(pageUrl, document.baseURI).pathname;
        for (const a of document.querySelectorAll('#mdbook-sidebar a[href]:not([href^="#"])')) {
            if (new URL(a.href).pathname === path) {
                return a.textContent.trim();
            }
        }
        return '';
    }

    // Pagefind's excerpts are HTML with the matches in <mark>. Keep only
    // the text and the marks, so nothing else in them can become markup;
    // neighbouring marks (the pieces of one split word) become one.
    function excerpt(html) {
        const template = document.createElement('template');
        template.innerHTML = html;
        const out = document.createDocumentFragment();
        for (const node of template.content.childNodes) {
            if (node.nodeName === 'MARK') {
                if (out.lastChild && out.lastChild.nodeName === 'MARK') {
                    out.lastChild.textContent += node.textContent;
                } else {
                    const mark = document.createElement('mark');
                    mark.textContent = node.textContent;
                    out.append(mark);
                }
            } else {
                out.append(node.textContent);
            }
        }
        return out;
    }

    // `text` with every occurrence of `term` (ignoring case) in <mark>.
    function markExactly(text, term) {
        const out = document.createDocumentFragment();
        const lower = text.toLowerCase();
        const needle = term.trim().toLowerCase();
        let from = 0;
        for (let at = lower.indexOf(needle); needle && at !== -1; at = lower.indexOf(needle, from)) {
            out.append(text.slice(from, at));
            const mark = document.createElement('mark');
            mark.textContent = text.slice(at, at + needle.length);
            out.append(mark);
            from = at + needle.length;
        }
        out.append(text.slice(from));
        return out;
    }

    // Like mdBook, the query is kept in the URL so that going back from a
    // result shows the results again; replaced, not pushed.
    function setSearchParam(term) {
        const url = new URL(location.href);
        if (term) {
            url.searchParams.set(SEARCH_PARAM, term);
        } else {
            url.searchParams.delete(SEARCH_PARAM);
        }
        if (url.href !== location.href) {
            history.replaceState(history.state, '', url.href);
        }
    }

    function schedule() {
        clearTimeout(debounce);
        debounce = setTimeout(() => search(bar.value.trim()), 120);
    }

    async function openResult() {
        await search(bar.value.trim());
        const link = list.querySelector('li.focus a') || list.querySelector('li a');
        if (link) {
            window.location.assign(link.href);
        }
    }

    window.addEventListener('keyup', e => {
        if (e.target === bar) {
            e.stopImmediatePropagation();
        }
    }, true);
    window.addEventListener('keydown', e => {
        if (e.key === 'Escape') {
            // searcher.js closes the bar; the query leaves the URL too.
            setTimeout(() => {
                if (wrapper.classList.contains('hidden')) {
                    setSearchParam('');
                }
            });
        }
        if (e.target !== bar) {
            return;
        }
        if (e.isComposing || e.keyCode === 229) {
            // Enter here confirms an IME conversion; it is not a query.
            e.stopImmediatePropagation();
        } else if (e.key === 'Enter' && !e.altKey && !e.ctrlKey && !e.metaKey && !e.shiftKey) {
            e.preventDefault();
            e.stopImmediatePropagation();
            openResult();
        }
    }, true);
    bar.addEventListener('input', e => {
        if (!e.isComposing) {
            schedule();
        }
    });
    bar.addEventListener('compositionend', schedule);
    // Start loading Pagefind (a small script, its wasm and the language's
    // index) as soon as the reader heads for the search bar.
    const warmUp = () => pagefind().catch(() => {});
    bar.addEventListener('focus', warmUp);
    if (toggle) {
        toggle.addEventListener('click', warmUp);
    }

    // The query in the URL, on load and on back/forward.
    function searchFromUrl() {
        const term = new URL(location.href).searchParams.get(SEARCH_PARAM);
        if (term) {
            wrapper.classList.remove('hidden');
            if (toggle) {
                toggle.setAttribute('aria-expanded', 'true');
            }
            bar.value = term;
            search(term.trim());
        } else {
            wrapper.classList.add('hidden');
            if (toggle) {
                toggle.setAttribute('aria-expanded', 'false');
            }
        }
    }
    window.onpopstate = searchFromUrl;
    if (new URL(location.href).searchParams.has(SEARCH_PARAM)) {
        searchFromUrl();
    } else if (!wrapper.classList.contains('hidden') && bar.value.trim() !== '') {
        // An mdBook ?search= link: searcher.js opened the bar and filled it in.
        search(bar.value.trim());
    }
})();
