-- bench/ref/skirmish.lua: the Lua reference for bench/skirmish.
--
-- The fight of bench/skirmish.rules, written by hand (as bench/ref/skirmish.c
-- is in C): 4 fighters against 8 goblins under the same rules and the same
-- tactic, played to the end N times, encounter i seeded with SEED + i.
--
--   lua5.4 bench/ref/skirmish.lua N SEED [trace]
--   luajit bench/ref/skirmish.lua N SEED [trace]
--
-- Prints one line, as the C reference does:
--   skirmish: runs N win W win_se S rounds R rounds_se S aoo A
--
-- The game is written in the subset of Lua that Lua 5.4 and LuaJIT (Lua 5.1)
-- share. Only the generator differs, and both are fray's own algorithm,
-- xoshiro256** seeded by splitmix64 with Lemire's unbiased bounded draw
-- (runtime/dice/rng.c), on 64-bit unsigned integers:
--   * under Lua 5.4, on its native 64-bit integers (wrapping arithmetic,
--     logical shifts), compiled with load() because LuaJIT cannot parse the
--     integer operators;
--   * under LuaJIT, on uint64_t cdata from its FFI, with the bit library's
--     64-bit operations (LuaJIT's math.random is another generator).
-- So both draw the same numbers as fray for the same seed.

local n_runs = tonumber(arg[1])
local first_seed = tonumber(arg[2])
if not n_runs or not first_seed then
  io.stderr:write("usage: skirmish.lua N SEED [trace]\n")
  os.exit(2)
end
local trace = arg[3] == "trace"

-- --- the generator ---------------------------------------------------------

local seed_rng, below

if jit then
  local ffi = require("ffi")
  local bit = require("bit")
  local band, bxor, rshift, lshift, rol = bit.band, bit.bxor, bit.rshift, bit.lshift, bit.rol
  local u64 = ffi.typeof("uint64_t")
  local function const(hi, lo) return u64(hi) * 0x100000000 + lo end
  local GOLDEN = const(0x9e3779b9, 0x7f4a7c15)
  local MIX1 = const(0xbf58476d, 0x1ce4e5b9)
  local MIX2 = const(0x94d049bb, 0x133111eb)
  local MASK = u64(0xffffffff)
  local S = ffi.new("uint64_t[4]")
  local thresholds = {}

  seed_rng = function(seed)
    local state = u64(seed)
    for i = 0, 3 do
      state = state + GOLDEN
      local z = state
      z = bxor(z, rshift(z, 30)) * MIX1
      z = bxor(z, rshift(z, 27)) * MIX2
      S[i] = bxor(z, rshift(z, 31))
    end
  end

  local function next64()
    local s0, s1, s2, s3 = S[0], S[1], S[2], S[3]
    local result = rol(s1 * 5, 7) * 9
    local t = lshift(s1, 17)
    s2 = bxor(s2, s0)
    s3 = bxor(s3, s1)
    s1 = bxor(s1, s2)
    s0 = bxor(s0, s3)
    s2 = bxor(s2, t)
    S[0], S[1], S[2], S[3] = s0, s1, s2, rol(s3, 45)
    return result
  end

  -- n < 2^32: the high word of x * n from 32-bit halves; the low word wraps.
  below = function(n)
    local x = next64()
    local low = x * n
    if low < n then
      local th = thresholds[n]
      if not th then
        th = (u64(0) - n) % n
        thresholds[n] = th
      end
      while low < th do
        x = next64()
        low = x * n
      end
    end
    local mid = rshift(x, 32) * n + rshift(band(x, MASK) * n, 32)
    return tonumber(rshift(mid, 32))
  end
else
  seed_rng, below = assert(load([[
    local s0, s1, s2, s3 = 0, 0, 0, 0
    local ult = math.ult
    local thresholds = {}

    local function seed(x)
      local st = math.tointeger(x)
      local out = {}
      for i = 1, 4 do
        st = st + 0x9e3779b97f4a7c15
        local z = st
        z = (z ~ (z >> 30)) * 0xbf58476d1ce4e5b9
        z = (z ~ (z >> 27)) * 0x94d049bb133111eb
        out[i] = z ~ (z >> 31)
      end
      s0, s1, s2, s3 = out[1], out[2], out[3], out[4]
    end

    local function next64()
      local m = s1 * 5
      local r = (m << 7) | (m >> 57)
      local result = r * 9
      local t = s1 << 17
      s2 = s2 ~ s0
      s3 = s3 ~ s1
      s1 = s1 ~ s2
      s0 = s0 ~ s3
      s2 = s2 ~ t
      s3 = (s3 << 45) | (s3 >> 19)
      return result
    end

    -- n < 2^32: the high word of x * n from 32-bit halves; the low word
    -- wraps; comparisons unsigned.
    local function below(n)
      local x = next64()
      local low = x * n
      if ult(low, n) then
        local th = thresholds[n]
        if not th then
          th = (2 * ((math.maxinteger % n + 1) % n)) % n -- 2^64 mod n
          thresholds[n] = th
        end
        while ult(low, th) do
          x = next64()
          low = x * n
        end
      end
      local mid = (x >> 32) * n + (((x & 0xffffffff) * n) >> 32)
      return mid >> 32
    end

    return seed, below
  ]], "=rng"))()
end

local function die(sides)
  return 1 + below(sides)
end

-- --- the creatures ---------------------------------------------------------

local FIGHTERS, GOBLINS = 1, 2
local NFIGHTERS, NGOBLINS = 4, 8
local N = NFIGHTERS + NGOBLINS

-- The scenario's creature lines.
local fighter = { dex = 1, bab = 6, str = 3, ac = 17, die = 8, threat = 19, mult = 2, max_hp = 36 }
local goblin = { dex = 2, bab = 4, str = 2, ac = 15, die = 8, threat = 20, mult = 3, max_hp = 16 }

local sheet, side, name = {}, {}, {}
for c = 1, N do
  if c <= NFIGHTERS then
    sheet[c], side[c], name[c] = fighter, FIGHTERS, "fighter_" .. c
  else
    sheet[c], side[c], name[c] = goblin, GOBLINS, "goblin_" .. (c - NFIGHTERS)
  end
end

local hp, foe, reacted, order = {}, {}, {}, {} -- foe: the enemy closed in on, or 0
local aoo = 0

local function alive(c) return hp[c] > 0 end

local function side_down(s)
  for c = 1, N do
    if side[c] == s and hp[c] > 0 then return false end
  end
  return true
end

local function over() return side_down(FIGHTERS) or side_down(GOBLINS) end

-- enemies(c): the enemies still in the fight, in the order of turns.
local function enemies(c, out)
  local n = 0
  for i = 1, N do
    local e = order[i]
    if side[e] ~= side[c] and hp[e] > 0 then
      n = n + 1
      out[n] = e
    end
  end
  return n
end

local function next_to(a, b) return foe[a] == b or foe[b] == a end

local scratch = {}

-- The enemy with the fewest hp; on a tie, the first in the order.
local function weakest(c)
  local n = enemies(c, scratch)
  local best = 0
  for i = 1, n do
    local e = scratch[i]
    if best == 0 or hp[e] < hp[best] then best = e end
  end
  return best
end

local function foe_next_to(c)
  local n = enemies(c, scratch)
  for i = 1, n do
    if next_to(c, scratch[i]) then return scratch[i] end
  end
  return 0
end

-- --- attacks -----------------------------------------------------------------

-- An attack roll: a natural 20 hits, a natural 1 misses. Returns the hit
-- and the natural die.
local function attack_roll(a, t, penalty)
  local k = sheet[a]
  local d = die(20)
  local total = d + k.bab + k.str + penalty
  if trace then print(string.format("%s -> %s: attack d20 (%d) = %d", name[a], name[t], d, total)) end
  return d == 20 or (d ~= 1 and total >= sheet[t].ac), d
end

-- A hit deals the weapon's damage; a threat a second roll confirms deals it
-- times the multiplier.
local function strike(a, t, penalty)
  local k = sheet[a]
  local hit, natural = attack_roll(a, t, penalty)
  if not hit then return end
  local times = 1
  if natural >= k.threat and attack_roll(a, t, penalty) then times = k.mult end
  local d = die(k.die)
  if trace then
    print(string.format("%s -> %s: damage d%d (%d) = %d x%d", name[a], name[t], k.die, d, d + k.str, times))
  end
  local left = hp[t] - (d + k.str) * times
  if left < 0 then left = 0 end
  hp[t] = left
end

local function attacks_of(k)
  local extra = k.bab - 1
  if extra < 0 then extra = 0 end
  return 1 + math.floor(extra / 5)
end

-- --- actions -------------------------------------------------------------------

local function full_attack(c, t)
  for k = 0, attacks_of(sheet[c]) - 1 do
    if not alive(t) then
      t = foe_next_to(c)
      if t == 0 then return end
    end
    strike(c, t, -5 * k)
  end
end

-- Leaving the enemies it stands next to: each may strike (its reaction of
-- the round); a mover that falls goes no further.
local es = {}
local function advance(c, t)
  local n = enemies(c, es)
  for i = 1, n do
    local e = es[i]
    if next_to(c, e) then
      if not reacted[e] then
        reacted[e] = true
        aoo = aoo + 1
        if trace then print(name[e] .. " takes attack_of_opportunity on " .. name[c]) end
        strike(e, c, 0)
      end
      if not alive(c) then return end
    end
  end
  n = enemies(c, es)
  for i = 1, n do
    if foe[es[i]] == c then foe[es[i]] = 0 end
  end
  foe[c] = t
end

-- The tactic: the weakest enemy; a full attack next to it, else close in and
-- attack once.
local function turn(c)
  local t = weakest(c)
  if t == 0 then return end
  if next_to(c, t) then
    full_attack(c, t)
    return
  end
  advance(c, t)
  if alive(c) and not over() then strike(c, t, 0) end
end

-- --- initiative: d20 + dex, highest first; ties by dex, then rolled again -------

local function initiative_roll(c)
  local d = die(20)
  if trace then print(string.format("%s: initiative_roll d20 (%d) = %d", name[c], d, d + sheet[c].dex)) end
  return d + sheet[c].dex
end

local function compare(a, b)
  local n = #a.keys
  if #b.keys < n then n = #b.keys end
  for i = 1, n do
    if a.keys[i] ~= b.keys[i] then
      if a.keys[i] > b.keys[i] then return -1 end
      return 1
    end
  end
  return 0
end

-- Stable insertion sort of p[lo..hi]: equal parts keep their places.
local function sort_parts(p, lo, hi)
  for i = lo + 1, hi do
    local key = p[i]
    local j = i
    while j > lo and compare(key, p[j - 1]) < 0 do
      p[j] = p[j - 1]
      j = j - 1
    end
    p[j] = key
  end
end

local function roll_initiative()
  local p = {}
  for c = 1, N do
    p[c] = { c = c, keys = { initiative_roll(c), sheet[c].dex } }
  end
  sort_parts(p, 1, N)
  -- the tied roll again, again while any are tied (at most 100 times)
  for _ = 1, 100 do
    local tied = false
    local i = 1
    while i < N do
      local j = i + 1
      while j <= N and compare(p[i], p[j]) == 0 do j = j + 1 end
      if j - i > 1 then
        tied = true
        for m = i, j - 1 do
          local keys = p[m].keys
          if #keys >= 10 then keys[10] = nil end
          keys[#keys + 1] = initiative_roll(p[m].c)
        end
        sort_parts(p, i, j - 1)
      end
      i = j
    end
    if not tied then break end
  end
  for i = 1, N do order[i] = p[i].c end
end

-- --- one fight ---------------------------------------------------------------

-- Plays one fight; returns the winning side and the rounds.
local function play(seed)
  seed_rng(seed)
  for c = 1, N do
    hp[c] = sheet[c].max_hp
    foe[c] = 0
    reacted[c] = false
  end
  roll_initiative()
  local round = 0
  while not over() do
    round = round + 1
    if trace then print("round " .. round) end
    for c = 1, N do reacted[c] = false end
    for i = 1, N do
      if over() then break end
      if alive(order[i]) then turn(order[i]) end
    end
  end
  if side_down(GOBLINS) then return FIGHTERS, round end
  return GOBLINS, round
end

local wins, sum, sumsq = 0, 0, 0
for i = 0, n_runs - 1 do
  local winner, rounds = play(first_seed + i)
  if winner == FIGHTERS then wins = wins + 1 end
  sum = sum + rounds
  sumsq = sumsq + rounds * rounds
  if trace then
    print(string.format("fight %d: %s win after %d rounds", first_seed + i,
      winner == FIGHTERS and "fighters" or "goblins", rounds))
  end
end
local p = wins / n_runs
local mean = sum / n_runs
local var = 0
if n_runs > 1 then var = (sumsq - sum * mean) / (n_runs - 1) end
if var < 0 then var = 0 end
print(string.format("skirmish: runs %d win %.6f win_se %.6f rounds %.6f rounds_se %.6f aoo %.5f",
  n_runs, p, math.sqrt(p * (1 - p) / n_runs), mean, math.sqrt(var / n_runs), aoo / n_runs))
