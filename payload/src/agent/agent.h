/* agent/agent.h: `benchboot agent`: one process per machine in the client,
 * server or controller role (docs/agent.md).  It parses the options and
 * hands over: clients and servers to session.h, the controller (or a
 * server that finds none and becomes it) to runner.h. */
#ifndef BB_AGENT_H
#define BB_AGENT_H

/* `benchboot agent ...`: see docs/agent.md.  Returns the exit status:
 * 0 done, 1 failure, 2 usage, 3 controller ended with a result still in
 * the spool. */
int agent_main(int argc, char **argv);

#endif
