"""The pit manager's and the auditor's screens, under /pit/ (see docs/pit.md).

`views` (what each address does, through `casino.web.Pages`), `forms` (what a form parses),
`selectors` (the reads of the floor, the ledger and the engine the pages need) and `presenters`
(their words and numbers as the templates show them).
"""
