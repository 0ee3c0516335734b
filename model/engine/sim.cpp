#include "engine/sim.hpp"

#include <cstdlib>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/membw.hpp"

#include <simgrid/Exception.hpp>
#include <simgrid/s4u.hpp>
#include <simgrid/version.h>
#include <xbt/log.h>

namespace sg4 = simgrid::s4u;

namespace swapsim::engine {

namespace {
double g_hz = 1;   // exec bound and flop scale: one flop per cycle
std::exception_ptr g_error;
bool g_deadlock = false;
}  // namespace

struct Sim::Impl {
    std::unique_ptr<sg4::Engine> engine;
    std::vector<sg4::Host*> cores;
    std::vector<MemBandwidth> dram;   // per socket
    std::vector<sg4::SemaphorePtr> parked;   // Sim::park, by id
    sg4::SemaphorePtr& sem(int id)
    {
        if (size_t(id) >= parked.size())
            parked.resize(size_t(id) + 1);
        if (!parked[size_t(id)])
            parked[size_t(id)] = sg4::Semaphore::create(0);
        return parked[size_t(id)];
    }
};

Sim::Sim(int* argc, char** argv, const PlatformSpec& p, bool verbose) : impl_(new Impl), spec_(p)
{
    if (!verbose)
        xbt_log_control_set("root.thresh:critical");
    // Thread contexts (one thread per actor, stacks ASan knows) in the sanitiser build (cmake
    // -DSWAPSIM_SANITIZE=ON) or with SWAPSIM_THREAD_CONTEXTS=1: the default ucontext factory
    // switches stacks in a way ASan misreads. Given on the command line, so the engine starts with it.
#ifdef SWAPSIM_THREAD_CONTEXTS
    const bool threads = true;
#else
    const char* env = std::getenv("SWAPSIM_THREAD_CONTEXTS");
    const bool threads = env && *env && std::string(env) != "0";
#endif
    std::string cfg = "--cfg=contexts/factory:thread";
    std::vector<char*> args(argv, argv + *argc);
    if (threads)
        args.insert(args.begin() + (args.empty() ? 0 : 1), cfg.data());
    int n = int(args.size());
    args.push_back(nullptr);
    impl_->engine = std::make_unique<sg4::Engine>(&n, args.data());
    g_hz = p.hz;
    auto* zone = sg4::create_full_zone("machine");
    double speed = p.threads_per_core > 1 ? p.hz * p.smt_yield : p.hz;
    int cores = p.sockets * p.cores_per_socket;
    for (int c = 0; c < cores; c++)
        impl_->cores.push_back(zone->create_host("core" + std::to_string(c), speed));
    impl_->dram.assign(size_t(p.sockets), MemBandwidth(p.dram_bw));
    zone->seal();
    sg4::Engine::on_deadlock_cb([] { g_deadlock = true; });
}

Sim::~Sim() { delete impl_; }

namespace {
void actor_body(const std::function<void()>& body, bool daemon)
{
    if (daemon)
        sg4::Actor::self()->daemonize();
    try {
        body();
    } catch (const simgrid::ForcefulKillException&) {
        throw;   // SimGrid unwinding a killed actor
    } catch (...) {
        if (!g_error)
            g_error = std::current_exception();
        // Stop the whole simulation: nothing after a failed actor is meaningful.
        sg4::Actor::kill_all();
    }
}
}  // namespace

void Sim::spawn_daemon(const std::string& name, int cpu, std::function<void()> body)
{
    int cores = int(impl_->cores.size());
    sg4::Actor::create(name, impl_->cores[size_t(cpu % cores)],
                       [body = std::move(body)] { actor_body(body, true); });
}

void Sim::spawn(const std::string& name, int cpu, std::function<void()> body)
{
    int cores = int(impl_->cores.size());
    sg4::Host* h = impl_->cores[size_t(cpu % cores)];
    sg4::Actor::create(name, h, [body = std::move(body)] { actor_body(body, false); });
}

void Sim::run()
{
    impl_->engine->run();
    if (g_error)
        std::rethrow_exception(g_error);
    if (g_deadlock)
        throw std::runtime_error("simulation deadlocked (an actor waits for an event that never comes)");
}

double Sim::now() { return sg4::Engine::get_clock(); }

void Sim::cpu(double seconds)
{
    if (seconds <= 0)
        return;
    sg4::this_actor::exec_init(seconds * g_hz)->set_bound(g_hz)->wait();
}

void Sim::cpu_on(int cpu, double seconds)
{
    if (seconds <= 0)
        return;
    sg4::Host* h = impl_->cores[size_t(cpu) % impl_->cores.size()];
    sg4::this_actor::exec_init(seconds * g_hz)->set_host(h)->set_bound(g_hz)->wait();
}

void Sim::mem_on(int cpu, double bytes, double rate)
{
    if (bytes <= 0)
        return;
    int core = cpu % int(impl_->cores.size());
    int socket = core / spec_.cores_per_socket;
    sleep_until(impl_->dram[size_t(socket)].transfer(now(), bytes, rate));
}

void Sim::sleep_for(double seconds)
{
    if (seconds > 0)
        sg4::this_actor::sleep_for(seconds);
}

void Sim::sleep_until(double t)
{
    double now = sg4::Engine::get_clock();
    if (t > now)
        sg4::this_actor::sleep_for(t - now);
}

void Sim::park(int id) { impl_->sem(id)->acquire(); }
void Sim::unpark(int id) { impl_->sem(id)->release(); }

struct Sim::Barrier::Impl {
    sg4::BarrierPtr b;
};

Sim::Barrier::Barrier(int n) : impl_(new Impl), n_(n) {}
Sim::Barrier::~Barrier() { delete impl_; }

void Sim::Barrier::wait()
{
    if (!impl_->b)
        impl_->b = sg4::Barrier::create(unsigned(n_));
    impl_->b->wait();
}

const char* Sim::simgrid_version()
{
    static const std::string v = std::to_string(SIMGRID_VERSION_MAJOR) + "." +
                                 std::to_string(SIMGRID_VERSION_MINOR);
    return v.c_str();
}

}  // namespace swapsim::engine
