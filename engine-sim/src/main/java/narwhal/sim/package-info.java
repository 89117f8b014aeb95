/**
 * A simulated vLLM engine: an HTTP server that speaks vLLM's OpenAI-compatible wire format
 * (completions and chat, streaming and not, NixlConnector {@code kv_transfer_params}) with
 * deterministic output and scriptable faults.
 *
 * <p>Entry points: {@link narwhal.sim.SimEngine#start(SimOptions)} in code, {@link
 * narwhal.sim.SimCli} on the command line. Faults come from a {@link narwhal.sim.FaultPlan} per
 * engine or from {@code [[sim:SPEC]]} directives inside a prompt.
 */
@NullMarked
package narwhal.sim;

import org.jspecify.annotations.NullMarked;
