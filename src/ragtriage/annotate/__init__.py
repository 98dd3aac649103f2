"""The machinery of ``ragtriage annotate``: queries and their sample, candidate pools, the
session store, a page's preparation (``prepare.py``), the web app and its static pages
(the command's configs and ``run`` are in ``ragtriage.flows.annotate``)."""
