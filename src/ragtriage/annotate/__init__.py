"""The machinery of ``ragtriage annotate``: queries and their sample, candidate pools, the
session store, the web app and its static pages (the command's flow is in
``ragtriage.flows.annotate``)."""
