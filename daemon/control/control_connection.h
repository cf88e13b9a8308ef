// ControlConnection: one client of the control socket (the transport layer): reads request lines,
// runs them one at a time through ControlHandler, in order, and writes the response lines.
// A line longer than the limit gets an error response and the connection is closed; malformed
// requests get an error response and the connection stays usable. A client that disconnects
// abandons its queued requests; a request already started runs to completion in the target.
// While more than max_output_bytes of responses wait for the client, nothing more is read or
// started.
// Owned by ControlServer through a shared_ptr; every method runs on the server's loop thread.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "cachelib/common/event_loop.h"
#include "daemon/control/control_handler.h"
#include "daemon/control/line_buffer.h"

namespace tiercache {

class ControlConnection : public std::enable_shared_from_this<ControlConnection> {
 public:
  struct Options {
    size_t max_line_bytes = 64 * 1024;
    // Progress lines are skipped while more than this much output waits for a slow reader.
    size_t progress_backlog_bytes = 4096;
    // No further request is read or started while more than this much output waits: a client
    // that pipelines requests and reads no reply holds at most this much of the daemon's memory.
    size_t max_output_bytes = 1 << 20;
  };
  // Called once, when the connection has closed its fd.
  using CloseCallback = std::function<void(ControlConnection*)>;

  // Takes ownership of `fd` (a connected, non-blocking stream socket).
  ControlConnection(EventLoop& loop, int fd, ControlHandler& handler, Options options,
                    CloseCallback on_close);
  ~ControlConnection();
  ControlConnection(const ControlConnection&) = delete;
  ControlConnection& operator=(const ControlConnection&) = delete;

  // Starts watching the socket.
  Status start();
  // Sends `response` as a complete reply and closes once it is written (e.g. "server busy").
  void reject(const ControlJson& response);
  // One last non-blocking attempt to write pending output, then closes. For server shutdown.
  void close_now();

 private:
  void on_events(uint32_t events);
  void read_input();
  void process_lines();
  void start_request(const std::string& line);
  void on_reply(uint64_t request_id, const ControlJson& response, bool final);
  void queue_output(const std::string& data);
  void write_output();
  void update_interest();
  bool output_backlogged() const { return output_.size() > options_.max_output_bytes; }
  void close();

  EventLoop& loop_;
  int fd_;
  ControlHandler& handler_;
  const Options options_;
  CloseCallback on_close_;
  LineBuffer input_;
  std::string output_;
  uint64_t next_request_id_ = 1;
  uint64_t active_request_ = 0;  // 0 when idle
  bool processing_ = false;      // inside process_lines()
  bool eof_ = false;             // the client shut down its sending side
  bool close_after_output_ = false;
  uint32_t interest_ = 0;
};

}  // namespace tiercache
