package narwhal.engines.sglang;

import com.fasterxml.jackson.databind.JsonNode;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import narwhal.adapters.kit.AdapterUnderTest;
import narwhal.adapters.kit.EnginePair;
import narwhal.adapters.kit.Fault;
import narwhal.adapters.kit.SimulatedEngine;
import narwhal.config.EngineConfig;
import narwhal.config.EngineRole;
import narwhal.spi.EngineDialect;
import narwhal.spi.EngineHttpRequest;
import narwhal.proto.v1.KvHandoffDescriptor;
import narwhal.sim.SimDialect;
import narwhal.sim.SimEngine;
import narwhal.sim.SimOptions;
import org.jspecify.annotations.Nullable;

/**
 * The SGLang dialect against two engine-sim engines in SGLang mode: both legs carry one bootstrap
 * rendezvous, and the decode sim pulls the KV from the prefill sim's bootstrap endpoint while both
 * run. Each sim is listed with its own bootstrap port as {@code dialect_options.bootstrap_port},
 * as an operator lists SGLang servers, so the rendezvous the router plans for the producer names
 * exactly the prefill sim (which is how a sim knows it is the prefill leg).
 */
final class SglangOnEngineSim implements AdapterUnderTest {

  private static final long SEED = 17;
  private static final String MODEL = "narwhal-sim";
  /**
   * How long a sim leg waits for its sibling's half of the rendezvous: longer than every router
   * limit the kit sets (so the router, not the engine, ends a leg whose sibling failed) and shorter
   * than the kit's settle time (so a leg the router forgot would still end, and the kit see it).
   */
  private static final long KV_WAIT_MILLIS = 5_000;

  private final SglangDialect dialect = new SglangDialect();
  private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());

  @Override
  public EngineDialect dialect() {
    return dialect;
  }

  @Override
  public String model() {
    return MODEL;
  }

  @Override
  public EnginePair start(List<Fault> faults) {
    SimulatedEngine producer = sim(EngineRole.PREFILL, "p0", faults);
    try {
      return new EnginePair(producer, sim(EngineRole.DECODE, "d0", faults));
    } catch (RuntimeException e) {
      producer.close();
      throw e;
    }
  }

  /** An SGLang-mode sim listed with its own bootstrap port, so a rendezvous it produces names it. */
  private SimulatedEngine sim(EngineRole role, String iid, List<Fault> faults) {
    return SimulatedEngine.start(role, iid, faults,
        SimOptions.builder().model(MODEL).seed(SEED).interTokenMillis(1).prefillBaseMillis(1)
            .dialect(SimDialect.SGLANG).kvWaitMillis(KV_WAIT_MILLIS),
        group,
        engine -> spec -> spec.withDialect(SglangDialect.NAME)
            .withDialectOptions(Map.of(BootstrapOptions.PORT_KEY, engine.bootstrapPort())));
  }

  @Override
  public List<String> expectedTokens(String prompt, int maxTokens) {
    return SimEngine.expectedTokens(SEED, prompt, maxTokens);
  }

  /**
   * The rendezvous as an SGLang server reads it from the leg's body: {@code bootstrap_host},
   * {@code bootstrap_port} (null meaning SGLang's default) and {@code bootstrap_room}, on the
   * connector every engine of the pair uses. The engine identity stays empty: SGLang's wire names
   * no engine, only where its bootstrap server listens.
   */
  @Override
  public @Nullable KvHandoffDescriptor handoffCarriedBy(EngineHttpRequest legRequest) {
    JsonNode body = SglangWire.tree(legRequest.body());
    JsonNode host = body.path(BootstrapRendezvous.HOST);
    JsonNode port = body.path(BootstrapRendezvous.PORT);
    JsonNode room = body.path(BootstrapRendezvous.ROOM);
    if (host.isMissingNode() && port.isMissingNode() && room.isMissingNode()) {
      return null;
    }
    KvHandoffDescriptor.Builder d = KvHandoffDescriptor.newBuilder()
        .setConnector(EngineConfig.defaults().connector())
        .setHost(host.asText(""))
        .setPort(port.isIntegralNumber() ? port.intValue() : BootstrapOptions.DEFAULT_PORT);
    if (!room.isMissingNode() && !room.isNull()) {
      d.putOpaqueFields(BootstrapRendezvous.ROOM, room.asText());
    }
    return d.build();
  }

  @Override
  public void close() {
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
