"""The players of London Bridge: random, greedy, alpha-beta search and the trained network.

The upper half of the London Bridge column (docs/architecture.md): it imports
``tdgammon.engine.london_bridge`` (the rules), numpy and, for the network alone,
torch; nothing of backgammon but ``tdgammon.engine.rules.errors``. Modules,
lowest first: choice (the best row of each parent) -> search (negamax with
alpha-beta) -> network (the value network, its inputs and its file) -> agents
(the players) -> factory (one player per name) -> duel (matches with seats
alternating, and their statistics).
"""
