"""The full-screen front-end (Textual): the game, game over with rematch, and replay.

Only this package imports textual; it never imports typer or zmq. The CLI imports it lazily and
only when stdout is a terminal and ``--plain`` is not given.
"""
