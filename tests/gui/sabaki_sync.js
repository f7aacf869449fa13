// Drives `boardq gtp go` through Sabaki's own GTP library (@sabaki/gtp): its
// ControllerStateTracker syncs the engine to a game as Sabaki opens it, then asks for a
// move; its StreamController streams an analysis until the next command ends it.
// Usage: node sabaki_sync.js PYTHON [ARGS...]; prints one JSON object on stdout.

const {Controller, ControllerStateTracker} = require('@sabaki/gtp')

const [python, ...args] = process.argv.slice(2)

// One engine for all, as Sabaki keeps its engine attached from game to game.
const controller = new Controller(python, [...args, '-m', 'boardq', 'gtp', 'go'])
const stderr = []
controller.on('stderr', ({content}) => stderr.push(content))
const tracker = new ControllerStateTracker(controller)

async function session(state, colour) {
  let error = null
  let move = null
  try {
    await tracker.sync(state)
    const response = await tracker.queueCommand({name: 'genmove', args: [colour]})
    move = response.error ? `? ${response.content}` : response.content
  } catch (err) {
    error = err.message
  }
  const score = await tracker.queueCommand({name: 'final_score'})
  return {error, move, score: score.content}
}

async function analysis() {
  const lines = []
  let seen = null
  const enough = new Promise(resolve => (seen = resolve))
  // White is to move after the game in progress.
  const streamed = controller.sendCommand({name: 'lz-analyze', args: ['W', '5']}, ({line}) => {
    if (line.startsWith('info ')) lines.push(line)
    if (lines.length >= 3) seen()
  })
  await Promise.race([enough, streamed])
  const name = await controller.sendCommand({name: 'name'}) // ends the stream
  const response = await streamed
  return {lines, error: response.error, name: name.content}
}

async function main() {
  controller.start()
  const time = {mainTime: 300, byoyomiTime: 30, byoyomiStones: 5}
  const result = {
    // A new 9x9 game as Sabaki opens it: its default komi 6.5, and a clock.
    fresh: await session({komi: 6.5, boardsize: [9, 9], timeSettings: time, history: []}, 'B'),
    // A handicap game: Sabaki sends the stones as set_free_handicap, komi 0.5.
    handicap: await session(
      {komi: 0.5, boardsize: [9, 9], history: [{name: 'set_free_handicap', args: ['G7', 'C3']}]},
      'W'
    ),
    // A game in progress, its moves replayed (Sabaki sends them all at once).
    progress: await session(
      {
        komi: 7.5,
        boardsize: [9, 9],
        history: [
          {name: 'play', args: ['B', 'E5']},
          {name: 'play', args: ['W', 'C4']},
          {name: 'play', args: ['B', 'G6']},
          {name: 'play', args: ['W', 'pass']},
        ],
      },
      'B'
    ),
    analysis: await analysis(),
  }
  await controller.stop()
  result.stderr = stderr
  process.stdout.write(JSON.stringify(result) + '\n')
}

main().catch(err => {
  process.stderr.write(`${err.stack}\n`)
  process.exit(1)
})
