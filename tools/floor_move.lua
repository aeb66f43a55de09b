-- wrk: a move's two requests in turn, as examples/floor.rs serves them:
-- one with one statement (the GET view), one with two (the POST move).
local n = 0
request = function()
    n = n + 1
    return wrk.format("GET", n % 2 == 1 and "/floor/1" or "/floor/2")
end
