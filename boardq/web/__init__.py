"""The web board (`boardq serve`): the HTTP server, its sessions, its API and its page.

`server` serves the `app` (the JSON API of `request`, sessions in `store`, each a
`session` with its `search` and `state`), guarded by `guard` and `connection`;
`records` keeps and loads the games played; `static/` holds the page.
"""
