package narwhal.core.checks;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import narwhal.config.EngineSpec;
import narwhal.config.FleetConfig;
import narwhal.core.profile.EngineGeneration;
import narwhal.core.profile.GenerationSource;
import narwhal.openai.Json;
import narwhal.spi.EngineDialects;
import narwhal.spi.EngineHttpRequest;
import narwhal.spi.EngineTransport;
import narwhal.time.Scheduler;
import org.jspecify.annotations.Nullable;

/**
 * Facts an engine reports about itself, read without judging them: its process generation (the
 * attestation document's {@code process_generation}) and its context length (the model list's
 * {@code max_model_len}, as vLLM reports it). Each read is one plain GET bounded by {@code
 * engine.health_timeout_s}; its future completes on the scheduler passed, never exceptionally.
 */
public final class EngineFacts implements GenerationSource {

  /** The attestation document's field naming the engine process's generation. */
  public static final String PROCESS_GENERATION = "process_generation";

  private final CheckSettings settings;
  private final EngineTransport transport;
  private final EngineDialects dialects;

  public EngineFacts(FleetConfig config, EngineTransport transport, EngineDialects dialects) {
    this.settings = CheckSettings.from(config);
    this.transport = transport;
    this.dialects = dialects;
  }

  /**
   * The generation {@code engine}'s attestation document reports; unknown (with the reason) when
   * the engine has no {@code attestation_url}, the document has no {@code process_generation}, or
   * the document could not be fetched or read.
   */
  @Override
  public CompletableFuture<EngineGeneration> current(EngineSpec engine, Scheduler loop) {
    URI url = engine.attestationUrl();
    if (url == null) {
      return CompletableFuture.completedFuture(EngineGeneration.unknown("no attestation_url"));
    }
    URI origin;
    try {
      origin = AttestationCheck.originOf(url);
    } catch (IllegalArgumentException e) {
      return CompletableFuture.completedFuture(EngineGeneration.unknown(e.getMessage()));
    }
    CompletableFuture<EngineGeneration> out = new CompletableFuture<>();
    loop.runInLoop(() -> fetchJson(origin, EngineHttpRequest.get(AttestationCheck.pathOf(url)),
        "attestation document", loop).whenComplete((doc, error) -> {
          if (error != null) {
            out.complete(EngineGeneration.unknown(EngineChecks.unwrap(error).getMessage()));
            return;
          }
          JsonNode g = doc.get(PROCESS_GENERATION);
          if (g == null || g.isNull()) {
            out.complete(EngineGeneration.unknown("the attestation document has no " + PROCESS_GENERATION));
          } else if (g.isIntegralNumber()) {
            out.complete(EngineGeneration.known(g.bigIntegerValue().toString()));
          } else if (g.isTextual() && !g.textValue().isBlank()) {
            out.complete(EngineGeneration.known(g.textValue()));
          } else {
            out.complete(EngineGeneration.unknown("the attestation document's " + PROCESS_GENERATION
                + " is neither a string nor an integer: " + g));
          }
        }));
    return out;
  }

  /**
   * The text of one field of {@code engine}'s attestation document (e.g. {@code block_size}), or
   * null when the engine has no {@code attestation_url}, the document lacks the field or cannot be
   * fetched.
   */
  public CompletableFuture<@Nullable String> attested(EngineSpec engine, String field, Scheduler loop) {
    URI url = engine.attestationUrl();
    CompletableFuture<@Nullable String> out = new CompletableFuture<>();
    if (url == null) {
      out.complete(null);
      return out;
    }
    URI origin;
    try {
      origin = AttestationCheck.originOf(url);
    } catch (IllegalArgumentException e) {
      out.complete(null);
      return out;
    }
    loop.runInLoop(() -> fetchJson(origin, EngineHttpRequest.get(AttestationCheck.pathOf(url)),
        "attestation document", loop).whenComplete((doc, error) -> {
          JsonNode v = error == null ? doc.get(field) : null;
          out.complete(v == null || v.isNull() ? null : v.asText());
        }));
    return out;
  }

  /**
   * The context length the engine's model list reports for the fleet's model ({@code
   * max_model_len} of its {@code data[]} entry); empty when it reports none or cannot be read.
   */
  public CompletableFuture<OptionalLong> maxModelLen(EngineSpec engine, Scheduler loop) {
    CompletableFuture<OptionalLong> out = new CompletableFuture<>();
    loop.runInLoop(() -> {
      EngineHttpRequest request;
      try {
        request = dialects.get(engine.dialect()).modelsRequest();
      } catch (RuntimeException e) {
        out.complete(OptionalLong.empty());
        return;
      }
      fetchJson(engine.url(), request, "model list", loop).whenComplete((doc, error) -> {
        out.complete(error != null ? OptionalLong.empty() : maxModelLen(doc, settings.model()));
      });
    });
    return out;
  }

  static OptionalLong maxModelLen(JsonNode models, String model) {
    JsonNode data = models.get("data");
    if (data == null || !data.isArray()) {
      return OptionalLong.empty();
    }
    for (JsonNode m : data) {
      JsonNode id = m.get("id");
      JsonNode len = m.get("max_model_len");
      if (id != null && model.equals(id.asText()) && len != null && len.isIntegralNumber() && len.longValue() > 1) {
        return OptionalLong.of(len.longValue());
      }
    }
    return OptionalLong.empty();
  }

  /** A JSON object fetched with one GET; an exceptional future (message for an operator) otherwise. */
  private CompletableFuture<JsonNode> fetchJson(URI base, EngineHttpRequest request, String what, Scheduler loop) {
    return RawGet.fetch(transport, base, request, settings.exchange(), settings.healthTimeoutNanos(),
        "engine.health_timeout_s", loop).thenApply(reply -> {
          if (reply.status() != 200) {
            throw new IllegalStateException(what + " answered HTTP " + reply.status());
          }
          JsonNode doc = parse(reply.body());
          if (doc == null || !doc.isObject()) {
            throw new IllegalStateException(what + " is not a JSON object");
          }
          return doc;
        });
  }

  private static @Nullable JsonNode parse(String body) {
    try {
      return Json.mapper().readTree(body);
    } catch (IOException e) {
      return null;
    }
  }
}
