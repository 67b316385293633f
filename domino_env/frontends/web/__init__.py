"""Play and watch in the browser (docs/web.md): ``domino-serve`` starts the server.

``protocol`` turns a seat's view into the JSON a browser receives and reads what a browser sends,
with one module per game for what differs (``line``, ``texas42``, ``fives``, ``mexican_train``: the
record's ``web_module``); ``server`` holds the tables (the engines, the bots, the turn timers), the websockets
and the replay viewer's endpoints; ``store`` keeps the tables in SQLite so a restarted server resumes
them; ``static/`` is the page (plain JavaScript, SVG tiles). The server needs the ``web`` extra (FastAPI,
uvicorn); nothing outside this package imports it.
"""
