package narwhal.adapters.kit;

import java.util.List;
import narwhal.spi.EngineDialect;
import narwhal.spi.EngineHttpRequest;
import narwhal.proto.v1.KvHandoffDescriptor;
import org.jspecify.annotations.Nullable;

/**
 * What an adapter module hands the conformance kit: its dialect, and a way to start a producer and
 * a consumer engine (real processes or a simulator, on real sockets) with faults injected.
 *
 * <p>The kit calls {@link #start} once per check, from the test thread, and closes the pair after
 * the check; {@link #close} once after the whole suite.
 */
public interface AdapterUnderTest extends AutoCloseable {

  /** The dialect under test, as the router would load it. */
  EngineDialect dialect();

  /** The model both engines serve. */
  String model();

  /**
   * Starts a producer and a consumer engine speaking {@link #dialect()}, with {@code faults}
   * injected (each aimed at the engine {@link Fault#phase()} names; none means healthy). Returns
   * once both accept connections. The specs must name the dialect and the KV connector and carry
   * any {@code dialect_options} the dialect needs; the kit sets the roles.
   *
   * @throws UnsupportedOperationException when the engine cannot inject one of the faults; the
   *     kit then skips that check, so say so only for faults the engine truly cannot produce
   */
  EnginePair start(List<Fault> faults) throws Exception;

  /**
   * The exact generated tokens (texts, in order) of a healthy {@code maxTokens}-token completion
   * whose prompt, or whose only user message, is {@code prompt}.
   */
  List<String> expectedTokens(String prompt, int maxTokens);

  /**
   * The KV handoff a leg request carries, read as the engine would read it, or null when it
   * carries none. The kit uses it to check that a sequential decode carries exactly the producer's
   * descriptor, that both concurrent legs carry the same rendezvous, and that a same-engine decode
   * carries nothing.
   */
  @Nullable KvHandoffDescriptor handoffCarriedBy(EngineHttpRequest legRequest);

  /** The time limits the kit configures; real engines may need longer ones than a simulator. */
  default KitTimeouts timeouts() {
    return KitTimeouts.defaults();
  }

  /** Releases what the adapter kept for the whole suite (event loop groups, processes). */
  @Override
  default void close() {}
}
