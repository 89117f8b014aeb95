package narwhal.adapters.kit;

import java.util.List;
import java.util.function.UnaryOperator;
import narwhal.config.EngineRole;
import narwhal.config.EngineSpec;
import narwhal.spi.Phase;
import narwhal.sim.FaultPlan;
import narwhal.sim.SimEngine;
import narwhal.sim.SimOptions;

/**
 * An {@link EngineUnderTest} on Narwhal's engine simulator, for adapters whose engine family the
 * simulator speaks: the kit's faults aimed at the engine's role become its fault plan.
 */
public final class SimulatedEngine implements EngineUnderTest {

  private final SimEngine engine;
  private final EngineSpec spec;

  /**
   * Starts a simulator for {@code role} with {@code faults} injected.
   *
   * @param options the simulator's options (model, seed, timing, dialect); the fault plan is added
   * @param describe how the fleet lists it, given {@code EngineSpec.of(iid, url, role)} (set the
   *     dialect and its options here)
   */
  public static SimulatedEngine start(EngineRole role, String iid, List<Fault> faults, SimOptions.Builder options,
      io.netty.channel.EventLoopGroup group, java.util.function.Function<SimEngine, UnaryOperator<EngineSpec>> describe) {
    Phase phase = role == EngineRole.PREFILL ? Phase.PREFILL : Phase.DECODE;
    SimEngine engine = SimEngine.start(
        options.faults(FaultPlan.of(EngineSimFaults.specsFor(phase, faults))).build(), group);
    return new SimulatedEngine(engine, describe.apply(engine).apply(EngineSpec.of(iid, engine.baseUrl(), role)));
  }

  private SimulatedEngine(SimEngine engine, EngineSpec spec) {
    this.engine = engine;
    this.spec = spec;
  }

  public SimEngine engine() {
    return engine;
  }

  @Override
  public EngineSpec spec() {
    return spec;
  }

  @Override
  public long inFlight() {
    return engine.stats().activeRequests() + engine.stats().waitingRequests();
  }

  @Override
  public long aborted() {
    return engine.stats().cancelledRequests();
  }

  @Override
  public void close() {
    engine.close();
  }
}
