/**
 * A simulated vLLM engine: an HTTP server that speaks vLLM's OpenAI-compatible wire format
 * (completions and chat, streaming and not, NixlConnector {@code kv_transfer_params}) with
 * deterministic output and scriptable faults.
 *
 * <p>Entry points: {@link narwhal.sim.SimEngine#start(SimOptions)} in code, {@link
 * narwhal.sim.SimCli} on the command line. Faults come from a {@link narwhal.sim.FaultPlan} per
 * engine or from {@code [[sim:SPEC]]} directives inside a prompt. Responses are paced either by
 * themselves ({@link narwhal.sim.TimingModel}, the default) or, in gpu timing mode, by the engine's
 * step loop ({@link narwhal.sim.gpu}), which behaves like a GPU under load.
 */
@NullMarked
package narwhal.sim;

import org.jspecify.annotations.NullMarked;
