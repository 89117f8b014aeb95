package narwhal.engines.vllm;

import com.fasterxml.jackson.databind.JsonNode;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import narwhal.adapters.kit.AdapterUnderTest;
import narwhal.adapters.kit.EnginePair;
import narwhal.adapters.kit.Fault;
import narwhal.adapters.kit.SimulatedEngine;
import narwhal.config.EngineRole;
import narwhal.spi.EngineDialect;
import narwhal.spi.EngineHttpRequest;
import narwhal.spi.UnreadableHandoffException;
import narwhal.openai.Json;
import narwhal.proto.v1.KvHandoffDescriptor;
import narwhal.sim.SimEngine;
import narwhal.sim.SimOptions;
import org.jspecify.annotations.Nullable;

/** The vLLM dialect against two engine-sim engines (vLLM wire, NixlConnector descriptors). */
final class VllmOnEngineSim implements AdapterUnderTest {

  private static final long SEED = 11;
  private static final String MODEL = "narwhal-sim";

  private final VllmDialect dialect = new VllmDialect();
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
    return new EnginePair(sim(EngineRole.PREFILL, "p0", faults), sim(EngineRole.DECODE, "d0", faults));
  }

  private SimulatedEngine sim(EngineRole role, String iid, List<Fault> faults) {
    return SimulatedEngine.start(role, iid, faults,
        SimOptions.builder().model(MODEL).seed(SEED).interTokenMillis(1).prefillBaseMillis(1), group,
        engine -> spec -> spec);
  }

  @Override
  public List<String> expectedTokens(String prompt, int maxTokens) {
    return SimEngine.expectedTokens(SEED, prompt, maxTokens);
  }

  @Override
  public @Nullable KvHandoffDescriptor handoffCarriedBy(EngineHttpRequest legRequest) {
    String body = new String(legRequest.body(), StandardCharsets.UTF_8);
    try {
      JsonNode tree = Json.mapper().readTree(body);
      if (tree == null || !tree.hasNonNull("kv_transfer_params")) {
        return null;
      }
      // A decode body holds kv_transfer_params where a prefill answer does: read it the same way.
      return dialect.readPrefillAnswer(body, NixlDescriptors.NIXL).handoff();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (UnreadableHandoffException e) {
      throw new AssertionError("the leg carries unreadable kv_transfer_params: " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }
}
