package narwhal.jmh;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import narwhal.openai.OpenAiRequestCodec;
import narwhal.proto.v1.CompletionRequest;
import narwhal.proto.v1.KvHandoffDescriptor;
import narwhal.proto.v1.Route;
import narwhal.spi.DecodeDraft;
import narwhal.spi.EngineDialect;
import narwhal.spi.EngineDialects;
import narwhal.spi.EngineHttpRequest;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The vLLM decode request, on the path from the prefill answer to the decode request: built whole
 * ({@code decodeRequest}, all of which ran on that path before the request was drafted while the
 * prefill runs), against completing a draft ({@code completeDraft}, what is left on the path now),
 * and the draft itself ({@code draft}, done while the engine prefills). The client's request is the
 * bench's workload: a 128-word prompt, 64 output tokens, sampling settings, streamed; the
 * producer's parameters are NIXL's six keys plus its two flags.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m"})
public class DecodeRequestBenchmark {

  private EngineDialect vllm;
  private CompletionRequest request;
  private KvHandoffDescriptor handoff;
  private DecodeDraft draft;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    vllm = EngineDialects.discover().get("vllm");
    StringBuilder prompt = new StringBuilder();
    for (int i = 0; i < 128; i++) {
      prompt.append(i == 0 ? "" : " ").append("word").append(i);
    }
    String body = "{\"model\":\"sim\",\"prompt\":\"" + prompt + "\",\"max_tokens\":64,\"temperature\":0.7,"
        + "\"top_p\":0.95,\"seed\":7,\"stream\":true,\"stream_options\":{\"include_usage\":true}}";
    request = OpenAiRequestCodec.parse(body.getBytes(StandardCharsets.UTF_8), Route.ROUTE_COMPLETIONS, null);
    String answer = "{\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"choices\":[{\"index\":0,\"text\":\"x\","
        + "\"finish_reason\":\"length\"}],\"usage\":{\"prompt_tokens\":128,\"completion_tokens\":1},"
        + "\"kv_transfer_params\":{\"do_remote_prefill\":true,\"do_remote_decode\":false,"
        + "\"remote_block_ids\":[4,5,6,7,8,9,10,11],\"remote_engine_id\":\"7f3c1b2a-engine-p\","
        + "\"remote_request_id\":\"cmpl-rid-p1-0\",\"remote_host\":\"10.0.0.7\",\"remote_port\":5600,\"tp_size\":1}}";
    handoff = vllm.readPrefillAnswer(answer, "nixl").handoff();
    draft = vllm.draftDecodeRequest(request);
  }

  @Benchmark
  public EngineHttpRequest decodeRequest() {
    return vllm.decodeRequest(request, handoff, "rid-d1");
  }

  @Benchmark
  public EngineHttpRequest completeDraft() {
    return draft.complete(handoff, "rid-d1");
  }

  @Benchmark
  public DecodeDraft draft() {
    return vllm.draftDecodeRequest(request);
  }
}
