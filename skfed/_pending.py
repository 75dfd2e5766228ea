"""Messages that wait for their node under the network's drops (drops36).

One rule, wherever an exchange runs under the simulated network's drops
(:class:`~skfed.network.SimulatedNetwork`, ``drop_rate``): a message waits
for one node (the node that sends it, or the node a server's message is
for) and is sent in the first round, from the start of its step, in which
that node is not dropped; a step is complete once each of its messages was
sent, and the next step starts in that same round (whoever acts on a step
needs all of it: the server ranks the fitted means once it holds them all,
the W-steps need every node's setup).  Which nodes a step still waits for
is :attr:`DropWait.waiting`: what an exchange that never completes names
in its error or warning.

:class:`DropWait` holds that schedule; the exchanges that follow it say
what the messages are and count them:

- a MOCHA join's exchanges with the fitted nodes
  (:class:`skfed.multitask._join_neighbours.FittedExchange`: the gate's
  steps and the rehearsal's request and report);
- a MOCHA fit's setup messages
  (:meth:`skfed.multitask._protocol._RoundProtocol.count_setup`: each
  node's setup up, then, once the server holds every one, the setup down);
- the feature-mean gates' messages to and from their hub
  (:func:`skfed._mean_neighbours._deliver`: one step at a time, each in
  rounds of its own);
- a newcomer's requests to the fitted nodes it chose, each answered in the
  node's first round up (:func:`ask_until_answered`: the feature-mean
  joins of Dada, Perso-lin and the online classifier);
- the support-recovery join's message from the server to each new node
  (:func:`skfed.support._join.join_sparse_linear`);
- Perso-lin's posterior join, where a newcomer asks its candidates and each
  answers in the first round both are up (messages that wait for two
  nodes: :func:`skfed.boosting._perso_lin_posterior.posterior_join`).

It draws nothing: the caller passes each round's draws (``active``), so
the schedule is the same whoever draws them.

Examples
--------
Two steps over three nodes: node 1 is down in round 0, so the first step
completes in round 1, where the second starts; node 2 is down there and
sends its second message in round 2.

>>> import numpy as np
>>> from skfed._pending import DropWait
>>> wait = DropWait([[0, 1, 2], [0, 2]])
>>> [(step, sent.tolist()) for step, sent in wait.take(np.array([True, False, True]))]
[(0, [0, 2])]
>>> wait.waiting.tolist()
[1]
>>> [(step, sent.tolist()) for step, sent in wait.take(np.array([True, True, False]))]
[(0, [1]), (1, [0])]
>>> [(step, sent.tolist()) for step, sent in wait.take(np.array([False, False, True]))]
[(1, [1])]
>>> wait.complete
True
"""

import numpy as np

__all__ = ["DropWait", "ask_until_answered"]

_NONE = np.zeros(0, dtype=np.intp)


def _ends(nodes):
    """A step's nodes: ``(n_messages,)``, or ``(n_messages, 2)`` when each
    message waits for two nodes."""
    nodes = np.asarray(nodes, dtype=np.intp)
    if nodes.ndim == 2 and nodes.shape[1] == 2:
        return nodes
    if nodes.ndim > 1:
        raise ValueError(f"a step's nodes must be of shape (n_messages,) or (n_messages, 2); "
                         f"got shape {nodes.shape}.")
    return nodes.reshape(-1)


class DropWait:
    """Steps of messages, each sent in its node's first round up from its step's start.

    Parameters
    ----------
    steps : list of array-like of int
        Per step, the node each of its messages waits for, in the messages'
        order; or, for a message that waits for two nodes (a newcomer that
        asks and the node that answers: both up in its round), shape
        ``(n_messages, 2)``.  A step without messages is complete at once.

    Attributes
    ----------
    step : int
        The step under way (``len(steps)`` once every step is complete).
    left : ndarray of int
        The messages of the step under way not yet sent (their positions in
        the step, ascending).
    """

    def __init__(self, steps):
        self._nodes = [_ends(nodes) for nodes in steps]
        self.step = -1
        self.left = _NONE
        self._next_step()

    def _next_step(self):
        """Start the next step that has messages (or complete)."""
        self.step += 1
        while self.step < len(self._nodes) and not len(self._nodes[self.step]):
            self.step += 1
        self.left = (np.arange(len(self._nodes[self.step]), dtype=np.intp)
                     if self.step < len(self._nodes) else _NONE)

    @property
    def complete(self):
        """Whether every message of every step was sent."""
        return self.step >= len(self._nodes)

    @property
    def waiting(self):
        """The nodes the step under way still waits for (sorted, once each;
        both ends of a message that waits for two)."""
        if self.complete:
            return _NONE
        return np.unique(self._nodes[self.step][self.left])

    def nodes(self, step):
        """The node (or two nodes) each message of step ``step`` waits for."""
        return self._nodes[step]

    def take(self, active=None):
        """The messages sent in a round: those whose node is up in it.

        Parameters
        ----------
        active : ndarray of shape (n_nodes,), dtype=bool, default=None
            The round's draws, by node (False: dropped); None: every node
            is up.

        Returns
        -------
        list of (int, ndarray of int)
            Per step the round took part in (ascending), the positions in
            the step of the messages sent, ascending.  A step completed in
            the round is followed by the next, in the same round.  Empty
            once complete.
        """
        sent = []
        while not self.complete:
            left = self.left
            if active is None:
                up = np.ones(len(left), dtype=bool)
            else:
                up = np.asarray(active[self._nodes[self.step][left]], dtype=bool)
                if up.ndim == 2:  # (messages that wait for two nodes)
                    up = up.all(axis=1)
            sent.append((self.step, left[up]))
            self.left = left[~up]
            if len(self.left):
                break
            self._next_step()
        return sent


def ask_until_answered(sim, askers, chosen, answer):
    """Each asker asks its chosen nodes, in rounds of their own, until each answered.

    One step of :class:`DropWait`: a chosen node answers in its first round
    up (the asker is not drawn: it waits for the answers).  In every round
    each asker still waiting sends an empty request to each of its nodes
    that has not answered yet, counted in ``sim.counter``; the faults are
    drawn for every node in every round (``sim.draw_rounds(1)``, also
    without drops).

    Parameters
    ----------
    sim : NetworkSimulation
        The join's simulation.
    askers : ndarray of shape (n_askers,), dtype=int
        The node that asks, by asker.
    chosen : list of ndarray of int
        Per asker, the nodes it asks (distinct), in the order it asks them.
    answer : callable
        ``answer(k, nodes)``: asker ``k`` receives the answers of ``nodes``
        (those of its chosen nodes up in the round, in its order) and
        counts them; called in every round for each asker that asked.
    """
    sizes = [len(c) for c in chosen]
    nodes = (np.concatenate([np.asarray(c, dtype=np.intp) for c in chosen]) if chosen
             else _NONE)
    owner = np.repeat(np.arange(len(chosen), dtype=np.intp), sizes)
    wait = DropWait([nodes])
    while not wait.complete:
        active = sim.draw_rounds(1)[0][0]
        left = wait.left
        ((_, sent),) = wait.take(active)
        for k in np.unique(owner[left]).tolist():
            todo = nodes[left[owner[left] == k]]
            sim.counter.send_pairs(np.full(len(todo), askers[k], np.intp), todo,
                                   np.zeros(len(todo), np.int64))
            answer(k, nodes[sent[owner[sent] == k]])
        sim.counter.next_round()
