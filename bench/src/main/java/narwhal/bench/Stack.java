package narwhal.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import narwhal.bench.cpu.Pinning;
import narwhal.bench.fleet.EngineProcesses;
import narwhal.bench.fleet.FleetFile;
import narwhal.bench.fleet.ManagedProcess;
import narwhal.bench.fleet.NginxConfig;
import narwhal.bench.fleet.NginxProcess;
import narwhal.bench.fleet.Ports;
import narwhal.bench.fleet.RouterProcess;
import narwhal.bench.fleet.SimSettings;
import narwhal.bench.load.Arm;
import narwhal.bench.load.HttpTarget;
import narwhal.bench.load.Targets;
import narwhal.bench.proc.ProcessProbe;
import org.jspecify.annotations.Nullable;

/**
 * Everything a run measures against, each in its own process: the simulated engines, the router
 * ({@code bin/narwhal serve}) and nginx, started once and shared by every arm and level.
 */
final class Stack implements AutoCloseable {

  final EngineProcesses engines;
  final @Nullable ManagedProcess router;
  final @Nullable ManagedProcess nginx;
  final Targets targets;

  private Stack(EngineProcesses engines, @Nullable ManagedProcess router, @Nullable ManagedProcess nginx,
      Targets targets) {
    this.engines = engines;
    this.router = router;
    this.nginx = nginx;
    this.targets = targets;
  }

  /** @param pinning which CPUs the proxies (router, nginx) and the engines run on */
  record Settings(int prefillEngines, int decodeEngines, SimSettings sim, List<String> engineJvmOptions,
      String routerJavaOptions, int routerMaxConnections, boolean withRouter, boolean withNginx, String nginx,
      String nginxWorkers, int nginxOpenFiles, Path repo, @Nullable Path routerJar, Path dir, Pinning pinning) {}

  static Stack start(Settings s, String java, String classpath) {
    Path logs = s.dir().resolve("logs");
    EngineProcesses engines = EngineProcesses.start(s.prefillEngines(), s.decodeEngines(), s.sim(), java, classpath,
        s.engineJvmOptions(), s.pinning().othersCommandPrefix(), logs);
    ManagedProcess router = null;
    ManagedProcess nginx = null;
    try {
      HttpTarget routerTarget = null;
      if (s.withRouter()) {
        int port = Ports.free();
        Path fleet = FleetFile.write(s.dir().resolve("fleet.json"), s.sim().model(), engines.prefillTargets(),
            engines.decodeTargets(), s.routerMaxConnections());
        log("starting the router (narwhal serve, JVM options " + s.routerJavaOptions() + ") on " + port);
        router = RouterProcess.start(s.repo(), s.routerJar(), java, fleet, port, s.routerJavaOptions(),
            s.pinning().proxyCommandPrefix(), logs.resolve("router.log"));
        routerTarget = new HttpTarget("127.0.0.1", port);
      }
      HttpTarget nginxTarget = null;
      HttpTarget nginxPrefillTarget = null;
      if (s.withNginx()) {
        int decodePort = Ports.free();
        int prefillPort;
        do { // the kernel may hand out a port again once its probe socket is closed
          prefillPort = Ports.free();
        } while (prefillPort == decodePort);
        NginxConfig.Ports ports = new NginxConfig.Ports(decodePort, prefillPort);
        log("starting nginx on " + ports.decode() + " (decode leg) and " + ports.prefill() + " (prefill leg)");
        nginx = NginxProcess.start(s.nginx(), s.dir().resolve("nginx"), ports, engines.prefillTargets(),
            engines.decodeTargets(), s.nginxWorkers(), s.nginxOpenFiles(), s.pinning().proxyCommandPrefix());
        nginxTarget = new HttpTarget("127.0.0.1", ports.decode());
        nginxPrefillTarget = new HttpTarget("127.0.0.1", ports.prefill());
      }
      Stack stack = new Stack(engines, router, nginx, new Targets(engines.prefillTargets(),
          engines.decodeTargets(), routerTarget, nginxTarget, nginxPrefillTarget));
      // Ctrl-C or SIGTERM to the harness must not leave engines, router or nginx behind.
      Runtime.getRuntime().addShutdownHook(new Thread(stack::close, "bench-stop-processes"));
      return stack;
    } catch (RuntimeException e) {
      if (router != null) {
        router.close();
      }
      engines.close();
      throw e;
    }
  }

  /** The processes whose CPU and memory count as {@code arm}'s relay. */
  List<Long> proxyPids(Arm arm, ProcessProbe probe) {
    return switch (arm) {
      case DIRECT -> List.of();
      case NARWHAL -> List.of(require(router).pid());
      case NGINX, NGINX_BOTH -> new ArrayList<>(probe.withChildren(require(nginx).pid()));
    };
  }

  /** Every process the run started (engines, router, nginx master and workers); not the harness. */
  List<Long> startedPids(ProcessProbe probe) {
    List<Long> pids = new ArrayList<>(engines.pids());
    if (router != null) {
      pids.add(router.pid());
    }
    if (nginx != null) {
      pids.addAll(probe.withChildren(nginx.pid()));
    }
    return pids;
  }

  private static ManagedProcess require(@Nullable ManagedProcess p) {
    if (p == null) {
      throw new IllegalStateException("that arm's process was not started");
    }
    return p;
  }

  static void log(String line) {
    System.out.println("[bench] " + line);
    System.out.flush();
  }

  @Override
  public synchronized void close() {
    if (nginx != null) {
      nginx.close();
    }
    if (router != null) {
      router.close();
    }
    engines.close();
  }
}
