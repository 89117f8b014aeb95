package narwhal.server;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import narwhal.config.ClusterConfig;
import narwhal.config.FleetConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code narwhal serve}: the router over a fleet file. */
@Command(name = "serve", sortOptions = false,
    description = {"Routes OpenAI-compatible requests across the fleet FILE describes, and serves narwhal.v1.Router "
        + "over gRPC. Runs preflight first (narwhal check) and refuses to serve a fleet that fails it (exit 1). "
        + "Preflight includes the profile gate: with serving.admission predictive (the default), or a role "
        + "controller that may move engines, every engine needs a fresh row in profiles.path, so run narwhal "
        + "profile --fleet FILE once before the first serve (SGLang engines are exempt; --preflight=warn serves "
        + "anyway, unpriced)."})
final class ServeCommand implements Callable<Integer> {

  @ParentCommand
  private Narwhal narwhal;

  @Option(names = "--fleet", required = true, paramLabel = "FILE", description = "the fleet file")
  private Path fleet;

  @Mixin
  private ListenFlags listen;

  @Mixin
  private TlsFlags tls;

  @Option(names = "--preflight", paramLabel = "MODE", description = {
      "enforce (default: refuse to serve when preflight fails), warn (print the failures, serve anyway) or off "
          + "(skip preflight, e.g. when engines start after the router)"})
  private String preflight = "enforce";

  @Option(names = "--replica-name", paramLabel = "NAME", description = {
      "this replica's name among the routers of the fleet file's cluster section (default: cluster.name, else "
          + "HOST:PORT)"})
  private String replicaName;

  private ServeCommand() {}

  @Override
  public Integer call() {
    Preflight.Mode mode = Preflight.Mode.parse(preflight);
    // Before preflight, which may spend a while probing engines, so a typo fails at once.
    listen.validate();
    Integer grpcPort = listen.grpcPort();
    FleetConfig config = FleetFiles.readOrReport("narwhal serve", fleet, narwhal.err, tls::applyTo);
    if (config == null) {
      return CheckCommand.CONFIG_ERROR;
    }
    if (replicaName != null) {
      if (config.cluster() == null) {
        narwhal.err.println("narwhal serve: --replica-name needs a cluster section in " + fleet);
        narwhal.err.flush();
        return CheckCommand.CONFIG_ERROR;
      }
      if (!ClusterConfig.validName(replicaName)) {
        narwhal.err.println("narwhal serve: --replica-name must be 1-100 letters, digits, '.', '_', ':' or '-', "
            + "starting with a letter or digit, got \"" + replicaName + "\"");
        narwhal.err.flush();
        return CheckCommand.CONFIG_ERROR;
      }
      config = config.withCluster(config.cluster().withName(replicaName));
    }
    java.util.Set<String> failedPreflight = new java.util.LinkedHashSet<>();
    if (!Preflight.gate(config, mode, narwhal.err, "narwhal serve", failedPreflight::addAll)) {
      return CheckCommand.FAILED;
    }
    RouterServer server = RouterServer.start(config, listen.host, listen.port, grpcPort, listen.journal);
    // Before anything announces the router: a SIGTERM from now on drains it.
    ShutdownSignal shutdown = ShutdownSignal.install(server.gracefulTimeout());
    if (!failedPreflight.isEmpty()) {
      // --preflight=warn serves the fleet, not the engines known to fail: the breaker's
      // readmission probes let each in once it answers correctly.
      server.holdUntilReadmitted(failedPreflight, "failed preflight (--preflight=warn)");
    }
    // logrotate moves the journal, then sends SIGHUP: rows go on in a fresh file at the same path.
    HangupSignal.onHangup(server::reopenJournal);
    String scheme = config.serving().tls() == null ? "http://" : "https://";
    narwhal.out.println("narwhal: serving " + scheme + listen.host + ":" + server.port());
    if (server.grpcPort() > 0) {
      narwhal.out.println("narwhal: serving gRPC (narwhal.v1.Router) on " + listen.host + ":" + server.grpcPort()
          + (config.serving().tls() == null ? "" : " over TLS"));
    }
    // On SIGTERM: stop admitting, let in-flight streams finish (serving.graceful_timeout_s), close.
    shutdown.awaitThenClose(server::shutdownGracefully);
    return 0;
  }
}
