package main

import (
	"github.com/spf13/cobra"

	"mkeysim/config"
)

// replayLong is 'mkeysim replay --help' before the flags.
const replayLong = `Feeds the RoCEv2 requests of a packet capture to the model's responder
and prints one result line per operation, as 'mkeysim run' does. The
capture is a pcap or pcapng file of Ethernet frames (what 'mkeysim run
--front wire --pcap-out' writes, or tcpdump, dumpcap and Wireshark save
from a RoCE port; gzipped or not); every RDMA
WRITE (its FIRST or ONLY packet), READ request, atomic and SEND with
invalidate starts an operation, in file order; the rest of a WRITE, the
responder's own answers, retransmissions and other packets start none.
docs/wire.md says how each packet becomes an operation and which NAK a
failure gets.

--scenario names a scenario file that gives the QPs and MKeys the packets
name. Its operations, if it has any, keep their places: the capture's
messages take, in order, the places of the operations a wire carries, and
their numbers must match; a scenario without operations runs the
capture's messages alone. Every result is checked against the golden
model, as in run; --pcap-out writes the requests and the responder's
answers again, --tlp-out the PCIe traffic.`

const replayExample = `  mkeysim run examples/klm-nested.json --front wire --pcap-out out/klm.pcap
  mkeysim replay out/klm.pcap --scenario examples/klm-nested.json
  tshark -r out/klm.pcap -Y infiniband`

// newReplayCmd is 'mkeysim replay'.
func newReplayCmd() *cobra.Command {
	var rf runFlags
	cfg := config.Default()
	c := &cobra.Command{
		Use:     "replay CAPTURE.pcap --scenario SCENARIO.json",
		Short:   "Run a RoCEv2 capture's requests through the model's responder",
		Long:    replayLong,
		Example: replayExample,
		Args:    nArgs(1, 1, "one capture file"),
		RunE: func(c *cobra.Command, args []string) error {
			if rf.setup == "" {
				return usagef("--scenario is required: the scenario whose QPs and MKeys the capture's packets name")
			}
			rf.capture, rf.front = args[0], "wire"
			return runMain(c, &rf, cfg, nil)
		},
	}
	c.Flags().StringVar(&rf.setup, "scenario", "", "the scenario `FILE` that gives the QPs and MKeys (and, if it has any, the operations among which the capture's messages run)")
	rf.register(c.Flags(), &cfg)
	return c
}
