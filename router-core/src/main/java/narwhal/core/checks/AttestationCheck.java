package narwhal.core.checks;

import narwhal.api.FailurePolicy;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import narwhal.config.EngineContract;
import narwhal.config.EngineSpec;
import narwhal.time.Scheduler;
import narwhal.core.legs.EngineFailures;
import narwhal.spi.EngineHttpRequest;
import narwhal.spi.EngineTransport;
import narwhal.openai.Json;

/**
 * The contract step: fetch the engine's attestation document and compare every pinned field.
 * The document is a JSON object whose keys are the fleet file's {@code engine_contract} names
 * ({@code vllm_version}, {@code kv_heads}, ...); other keys are ignored.
 */
final class AttestationCheck {

  /** Fetched when {@code attestation_url} is a bare origin ({@code http://host:port}). */
  static final String DEFAULT_PATH = "/narwhal/attestation";

  private final EngineTransport transport;
  private final CheckSettings settings;

  AttestationCheck(EngineTransport transport, CheckSettings settings) {
    this.transport = transport;
    this.settings = settings;
  }

  CompletableFuture<CheckResult> check(EngineSpec engine, Scheduler loop) {
    long start = loop.nanoTime();
    EngineContract contract = settings.contract();
    if (contract == null) {
      return done(CheckResult.passed(EngineChecks.CONTRACT, engine.iid(), "contract (no contract pinned)", 0));
    }
    URI url = engine.attestationUrl();
    if (url == null) {
      return done(CheckResult.failed(EngineChecks.CONTRACT, engine.iid(), "engine_contract is pinned but engine "
          + engine.iid() + " has no attestation_url: set attestation_url on its engines[] entry to the URL of its "
          + "attestation document so the router can compare the contract", 0));
    }
    EngineHttpRequest request = EngineHttpRequest.get(pathOf(url));
    return RawGet.fetch(transport, originOf(url), request, settings.exchange(), settings.healthTimeoutNanos(),
            "engine.health_timeout_s", loop)
        .handle((reply, error) -> {
          long elapsed = loop.nanoTime() - start;
          String where = "attestation document " + display(url);
          if (error != null) {
            return CheckResult.failed(EngineChecks.CONTRACT, engine.iid(),
                where + ": " + EngineChecks.unwrap(error).getMessage(), elapsed);
          }
          if (FailurePolicy.refusesCredentials(reply.status())) {
            return CheckResult.failed(EngineChecks.CONTRACT, engine.iid(),
                EngineFailures.credentialsRefused("engine " + engine.iid() + "'s " + where, reply.status()), elapsed);
          }
          if (reply.status() != 200) {
            return CheckResult.failed(EngineChecks.CONTRACT, engine.iid(),
                where + " answered HTTP " + reply.status(), elapsed);
          }
          JsonNode doc;
          try {
            doc = Json.mapper().readTree(reply.body());
          } catch (IOException e) {
            doc = null;
          }
          if (doc == null || !doc.isObject()) {
            return CheckResult.failed(EngineChecks.CONTRACT, engine.iid(), where + " is not a JSON object", elapsed);
          }
          List<String> mismatches = ContractFields.mismatches(contract, doc);
          if (!mismatches.isEmpty()) {
            return CheckResult.failed(EngineChecks.CONTRACT, engine.iid(),
                "contract mismatch: " + String.join("; ", mismatches), elapsed);
          }
          int pinned = ContractFields.pinned(contract).size();
          return CheckResult.passed(EngineChecks.CONTRACT, engine.iid(),
              "contract ok (" + pinned + (pinned == 1 ? " field)" : " fields)"), elapsed);
        });
  }

  /** Scheme, host and port: what the transport connects to. */
  static URI originOf(URI url) {
    try {
      return new URI(url.getScheme(), url.getRawAuthority(), null, null, null);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("attestation_url " + url + " has no usable origin", e);
    }
  }

  /** The path and query to fetch; a bare origin means the default document path. */
  static String pathOf(URI url) {
    String path = url.getRawPath() == null || url.getRawPath().isEmpty() || url.getRawPath().equals("/")
        ? DEFAULT_PATH : url.getRawPath();
    return url.getRawQuery() == null ? path : path + "?" + url.getRawQuery();
  }

  private static String display(URI url) {
    return originOf(url) + pathOf(url);
  }

  private static CompletableFuture<CheckResult> done(CheckResult result) {
    return CompletableFuture.completedFuture(result);
  }
}
